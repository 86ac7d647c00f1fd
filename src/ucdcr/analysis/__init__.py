"""Analysis and evaluation as pure functions over mention tables: statistics, lexical diversity, the evaluation
protocol, the same-head-lemma baseline, evaluate, and the comparison of two builds."""
