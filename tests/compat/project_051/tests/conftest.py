"""The project's conftest: 0.5.1 keeps this folder's goldens in tests/__agent_snapshots__/."""
