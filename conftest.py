"""Loads the grader's pytest plugin: testcases/*.yaml become test items run against solutions/."""

pytest_plugins = ["grader.pytest_plugin"]
