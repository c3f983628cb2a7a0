"""Counters under ncu's names, from a trace read and checked to the reports: the pipeline, the analysis pass,
the rows kept, the metrics, ncu's CSV, the reports and the CI check."""
