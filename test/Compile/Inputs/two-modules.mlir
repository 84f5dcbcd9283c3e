gpu.module @a {
}
gpu.module @b {
}
