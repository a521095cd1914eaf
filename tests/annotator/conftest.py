"""The sample projects under projects/ are run by the end-to-end test, not collected."""

collect_ignore = ["projects"]
