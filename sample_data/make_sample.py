"""Regenerate the sample collection (deterministic): python sample_data/make_sample.py"""

from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
rng = np.random.default_rng(2024)
queries = [str(q) for q in range(401, 416)]
docs = [f"FT{rng.integers(911, 944)}-{i:05d}" for i in range(4000)]

qrels_lines, runs = [], {"bm25": [], "bm25_rm3": [], "dense": []}
for q in queries:
    pool = rng.choice(len(docs), size=120, replace=False)
    grades = rng.choice([0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2], size=len(pool))
    for d, g in zip(pool, grades):
        qrels_lines.append(f"{q} 0 {docs[d]} {g}")
    strength = {"bm25": 0.7, "bm25_rm3": 0.9, "dense": 1.1}
    for run, lines in runs.items():
        cand = np.unique(np.concatenate([pool[:90], rng.choice(len(docs), 300, replace=False)]))
        g = dict(zip(pool.tolist(), grades.tolist()))
        gains = np.array([g.get(int(c), 0) for c in cand])
        score = rng.normal(0, 1, len(cand)) + strength[run] * gains
        order = np.argsort(-score)[:100]
        for rank, i in enumerate(order, 1):
            lines.append(f"{q} Q0 {docs[cand[i]]} {rank} {score[i] + 10:.4f} {run}")
(HERE / "qrels.txt").write_text("\n".join(qrels_lines) + "\n")
for run, lines in runs.items():
    (HERE / f"{run}.run").write_text("\n".join(lines) + "\n")
