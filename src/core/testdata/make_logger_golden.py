# Writes logger_golden.log with Python's json.dumps, the serializer mlcommons/logging uses;
# core/mllog_test.cc checks that trainbench's Logger writes the same bytes.
import json
t = 1700000000000
rows = [(10, "POINT_IN_TIME", "cache_clear", True, {}),
        (11, "INTERVAL_START", "init_start", None, {}),
        (12, "POINT_IN_TIME", "submission_benchmark", "resnet", {}),
        (13, "POINT_IN_TIME", "global_batch_size", 3264, {}),
        (14, "POINT_IN_TIME", "lars_opt_weight_decay", 5e-05, {}),
        (15, "POINT_IN_TIME", "lars_epsilon", 0.0, {}),
        (16, "INTERVAL_START", "block_start", None, {"first_epoch_num": 1, "epoch_count": 1}),
        (17, "INTERVAL_END", "run_stop", None, {"status": "success"})]
with open("logger_golden.log", "w") as f:
    for i, (ln, et, k, v, md) in enumerate(rows):
        m = {"file": "train.cc", "lineno": ln}
        m.update(md)
        f.write(":::MLLOG " + json.dumps({"namespace": "", "time_ms": t + i, "event_type": et,
                                          "key": k, "value": v, "metadata": m}) + "\n")
