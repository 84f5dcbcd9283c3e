#!/usr/bin/env bash
# Shared by scripts/demo and scripts/test: install what is missing (Debian 12,
# as root), configure $BUILD_DIR with Ninja once, build incrementally.
#
# Environment:
#   BUILD_DIR         build directory (default: build)
#   TILE_SANITIZE=1   configure with ASan + UBSan (use a separate BUILD_DIR)
#   TILE_CMAKE_ARGS   extra arguments for the first configure
set -euo pipefail

TILE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-build}"
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$TILE_ROOT/$BUILD_DIR" ;; esac
LLVM_PREFIX=/usr/lib/llvm-22

# Debian packages the build needs. llvm-22/mlir-22 come from bookworm-security.
TILE_PACKAGES=(cmake ninja-build g++ python3 python3-pytest libgtest-dev
               libzstd-dev llvm-22-dev llvm-22-tools libmlir-22-dev
               mlir-22-tools)

tile_install_packages() {
  local missing=()
  for p in "${TILE_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
      missing+=("$p")
  done
  # ccache only speeds up rebuilds; install it when we can, never require it.
  local optional=()
  command -v ccache >/dev/null 2>&1 || optional+=(ccache)
  [ ${#missing[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ] && return 0
  if [ ${#missing[@]} -eq 0 ] && [ "$(id -u)" -ne 0 ]; then
    return 0
  fi
  if [ "$(id -u)" -ne 0 ]; then
    echo "error: missing Debian packages: ${missing[*]}" >&2
    echo "install them as root:  apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  echo "== installing: ${missing[*]} ${optional[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  if ! apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; then
    echo "error: apt-get could not install: ${missing[*]}" >&2
    echo "llvm-22/mlir-22 come from Debian's bookworm-security suite; check" >&2
    echo "that it is in /etc/apt/sources.list(.d) (apt-cache policy libmlir-22-dev)." >&2
    exit 1
  fi
  [ ${#optional[@]} -eq 0 ] ||
    apt-get install -y -q --no-install-recommends "${optional[@]}" >/dev/null || true
}

tile_configure() {
  if [ -f "$BUILD_DIR/build.ninja" ]; then
    return 0
  fi
  local args=(-G Ninja -S "$TILE_ROOT" -B "$BUILD_DIR"
              -DCMAKE_BUILD_TYPE=Release
              -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir"
              -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit")
  if [ "${TILE_SANITIZE:-0}" = 1 ]; then
    args+=(-DTILE_ENABLE_SANITIZERS=ON)
  fi
  echo "== configuring $BUILD_DIR"
  # shellcheck disable=SC2086
  cmake "${args[@]}" ${TILE_CMAKE_ARGS:-} >/dev/null
}

tile_build() {
  echo "== building ($BUILD_DIR)"
  cmake --build "$BUILD_DIR" "$@"
}

# The Python tests run under the first python3 on PATH, which may not be
# Debian's (a pyenv one): give it pytest from PyPI when it lacks it.
tile_python_pytest() {
  python3 -c "import pytest" 2>/dev/null && return 0
  echo "== installing pytest for $(command -v python3)"
  python3 -m pip install -q pytest >/dev/null 2>&1 ||
    python3 -m pip install -q --break-system-packages pytest >/dev/null ||
    { echo "error: pytest is missing for $(command -v python3)" >&2; exit 1; }
}

# `import tile_mlir` from anywhere: the build tree's package on the user
# site path (what an editable install does). Not for sanitizer builds,
# whose libraries need the ASan runtime preloaded.
tile_python_path() {
  [ "${TILE_SANITIZE:-0}" = 1 ] && return 0
  [ -f "$BUILD_DIR/python/tile_mlir/__init__.py" ] || return 0
  local site
  site=$(python3 -m site --user-site 2>/dev/null) || return 0
  mkdir -p "$site" && echo "$BUILD_DIR/python" > "$site/tile_mlir_build.pth"
}

tile_setup() {
  tile_install_packages
  tile_python_pytest
  tile_configure
  tile_build "$@"
  tile_python_path
}
