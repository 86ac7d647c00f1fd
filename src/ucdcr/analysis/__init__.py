"""Analysis and evaluation as pure functions over mention tables: statistics, lexical diversity, baseline, evaluate."""
