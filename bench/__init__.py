"""Benchmarks: each ``bench/bench_*.py`` module has ``main(argv) -> int`` and prints a table."""
