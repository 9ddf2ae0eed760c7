"""tests/compat: the project recorded by agentsnap 0.5.1 is fixture data, run in a subprocess, never collected here."""

collect_ignore = ["project_051", "record_051.py", "fakes_051.py"]
