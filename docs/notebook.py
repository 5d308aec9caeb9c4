"""smarteval in a notebook: DataFrames and dicts in, DataFrames and tables out."""

import pandas as pd

import smarteval

# a PyTerrier-style run and qrels (qid, docno, score / label); ir_measures' names
# (query_id, doc_id, score / relevance), {qid: {docno: value}} dicts, namedtuples,
# Parquet and JSON Lines files work the same way
names = ["qid", "Q0", "docno", "rank", "score", "tag"]
bm25 = pd.read_csv("sample_data/bm25.run", sep=" ", names=names, dtype={"qid": str})
dense = pd.read_csv("sample_data/dense.run", sep=" ", names=names, dtype={"qid": str})
qrels = pd.read_csv("sample_data/qrels.txt", sep=" ", names=["qid", "iter", "docno", "label"],
                    dtype={"qid": str})

results = smarteval.evaluate(qrels, {"bm25": bm25, "dense": dense}, ["map", "nDCG@10", "P.10"])
print(results.wide().round(4).to_markdown())           # runs x measures
print(results.frame(per_query=True).head(3))            # run, query, measure, value

# the same comparison as `smarteval compare`, as a table for a paper
comparison = smarteval.compare(qrels, {"bm25": bm25}, {"dense": dense}, ["map", "nDCG@10"],
                               tests=["t", "randomization"])
print(comparison.to_markdown())

# every result shows itself: print() gives the text the command prints, and a cell
# ending with it (`table`) shows its HTML table (`_repr_html_`, what `-f html` writes)
table = smarteval.report(qrels, {"bm25": bm25, "dense": dense}, ["map", "nDCG@10"])
print(table)

# ir_measures' face: the same call, the same keys
print(smarteval.calc_aggregate(["AP", "nDCG@10"], qrels, dense))
