"""Benchmarks: each ``bench/bench_*.py`` module has ``main(argv) -> int`` and prints a table."""


def print_measures(rows: list[tuple[str, str, str]]) -> None:
    """Print ``(measure, value, note)`` rows as an aligned table.

    >>> print_measures([("a", "1", ""), ("bb", "22", "note")])
    measure  value  note
    a            1  
    bb          22  note
    """
    w = max(len("measure"), *(len(r[0]) for r in rows))
    v = max(len("value"), *(len(r[1]) for r in rows))
    print(f"{'measure':<{w}}  {'value':>{v}}  note")
    for name, value, note in rows:
        print(f"{name:<{w}}  {value:>{v}}  {note}")
