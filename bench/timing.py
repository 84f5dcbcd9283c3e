"""Timing for the torch-side benchmarks (fp8_bench.py, gemm_any_bench.py,
attention_bench.py): CUDA-event medians, and entries captured as CUDA
graphs timed interleaved in one process."""
import statistics

import torch


def median_ms(fn, reps=20):
    """Median milliseconds of `reps` event-timed calls of `fn`."""
    start, end = (torch.cuda.Event(enable_timing=True),
                  torch.cuda.Event(enable_timing=True))
    times = []
    for _ in range(reps):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def graphed(fn, calls=10):
    """`fn` called `calls` times, captured as one CUDA graph: replays time
    the GPU work alone (small GEMMs take less GPU time than a Python
    launch takes host time, which eager timing would measure)."""
    fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    return graph, calls


def interleaved(entries, reps=10, rounds=3):
    """Per-call milliseconds of each entry (name -> callable): each captured
    as a graph, the entries replayed in turn for `rounds` rounds (each
    timing after an untimed replay), the median of the rounds. An entry
    that cannot be captured or run (a library refusing the shape) is
    reported and gives NaN."""
    graphs = {}
    for name, fn in entries.items():
        try:
            graphs[name] = graphed(fn)
        except Exception as e:  # noqa: BLE001 (a launch refused in capture)
            print(f"  {name}: {str(e).splitlines()[0][:120]}")
            graphs[name] = None
    results = {name: [] for name in entries}
    for _ in range(rounds):
        for name, captured in graphs.items():
            if captured is None:
                results[name].append(float("nan"))
                continue
            graph, calls = captured
            graph.replay()
            results[name].append(median_ms(graph.replay, reps) / calls)
    return {name: statistics.median(t) for name, t in results.items()}
