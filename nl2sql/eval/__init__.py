"""Benchmarks of the whole pipeline: Spider-format loader, execution-accuracy metric, runner.

`spider.py` loads questions and runs gold queries, `hardness.py` computes Spider's hardness level,
`metric.py` compares results, `runner.py` asks every question (in worker processes), `report.py`
turns records into figures, `demo.py` lays the demo's questions out as a Spider-format set and
`cli.py` is the `nl2sql bench spider` and `nl2sql bench demo` commands.
"""
