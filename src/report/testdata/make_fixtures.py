#!/usr/bin/env python3
"""Writes the report's fixture result folders (small hand-made MLLOG logs, no training).

    python3 make_fixtures.py   # rewrites results_a/, results_b/, results_xss/ and results_broken/

results_a: system "cpu-2core", 5 runs of image_classification mini (one does not converge);
results_b: system "cpu-8core", 5 faster runs, logged by a later git revision;
results_xss: one run whose logged values hold HTML and script;
results_broken: one good run, and files that cannot be used (truncated, garbage, empty).
"""
import json
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))


def line(t, etype, key, value, lineno, **md):
    meta = {"file": "harness.cc", "lineno": lineno}
    meta.update(md)
    return ":::MLLOG " + json.dumps({"namespace": "", "time_ms": t, "event_type": etype,
                                     "key": key, "value": value, "metadata": meta})


def run_log(start_ms, epoch_minutes, accuracies, throughput, success, seed, revision="abc1234",
            benchmark="image_classification", log_name="resnet", org="trainbench",
            config_extra=None, hostname="bench-host", metric="top1", target=0.91):
    out = []
    t = start_ms - 5000
    n = [100]

    def ev(etype, key, value, **md):
        n[0] += 1
        out.append(line(t, etype, key, value, n[0], **md))

    ev("POINT_IN_TIME", "cache_clear", True)
    ev("INTERVAL_START", "init_start", None)
    ev("POINT_IN_TIME", "submission_benchmark", log_name)
    ev("POINT_IN_TIME", "submission_org", org)
    ev("POINT_IN_TIME", "submission_division", "closed")
    ev("POINT_IN_TIME", "submission_status", "onprem")
    ev("POINT_IN_TIME", "submission_platform", "cpu")
    ev("POINT_IN_TIME", "trainbench_benchmark", benchmark)
    ev("POINT_IN_TIME", "trainbench_scale", "mini")
    ev("POINT_IN_TIME", "trainbench_quality_target", target, metric=metric)
    ev("POINT_IN_TIME", "seed", seed)
    requested = {"batch_size": 128}
    effective = {"batch_size": 128, "opt_name": "sgd", "seed": seed, "threads": 2,
                 "loader_threads": 1, "device": "cpu", "max_epochs": 10, "eval_every_epochs": 1}
    if config_extra:
        requested.update(config_extra)
        effective.update(config_extra)
    ev("POINT_IN_TIME", "trainbench_config_requested", requested)
    ev("POINT_IN_TIME", "trainbench_config_effective", effective)
    ev("POINT_IN_TIME", "trainbench_provenance",
       {"git_revision": revision, "compiler": "GCC 12.2.0", "cpu_model": "AMD EPYC",
        "logical_cpus": 2, "hostname": hostname, "os": "Linux 6.1"})
    ev("POINT_IN_TIME", "global_batch_size", 128)
    ev("INTERVAL_END", "init_stop", None)
    t = start_ms
    ev("INTERVAL_START", "run_start", None)
    ev("POINT_IN_TIME", "train_samples", 60000)
    ev("POINT_IN_TIME", "eval_samples", 10000)
    for e, acc in enumerate(accuracies, start=1):
        ev("INTERVAL_START", "block_start", None, first_epoch_num=e, epoch_count=1)
        ev("INTERVAL_START", "epoch_start", None, epoch_num=e)
        t = start_ms + int(round(e * epoch_minutes * 60000))
        ev("INTERVAL_END", "epoch_stop", None, epoch_num=e, samples_count=60000)
        ev("POINT_IN_TIME", "tracked_stats",
           {"throughput": throughput[e - 1], "steps": 469, "train_loss": 0.5 / e}, epoch_num=e)
        ev("INTERVAL_END", "block_stop", None, first_epoch_num=e)
        ev("INTERVAL_START", "eval_start", None, epoch_num=e)
        t += 2000
        ev("INTERVAL_END", "eval_stop", None, epoch_num=e, samples_count=10000)
        ev("POINT_IN_TIME", "eval_accuracy", acc, epoch_num=e)
    t += 1
    ev("INTERVAL_END", "run_stop", None, status="success" if success else "aborted")
    return "\n".join(out) + "\n"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def curve(epochs, final):
    # Rising accuracy that ends at `final`.
    return [round(final - 0.06 * (epochs - e) / epochs - 0.002 * (epochs - e), 4)
            for e in range(1, epochs + 1)]


def main():
    for d in ("results_a", "results_b", "results_xss", "results_broken"):
        shutil.rmtree(os.path.join(HERE, d), ignore_errors=True)
    day = 86400000
    base = 1714000000000  # 2024-04-24
    # results_a: cpu-2core, ~9 minutes per run; run 4 does not converge.
    a = [(0.93, 9, 0.912, True), (0.95, 9, 0.915, True), (0.90, 10, 0.911, True),
         (1.00, 10, 0.905, False), (0.97, 9, 0.913, True)]
    for i, (em, epochs, final, ok) in enumerate(a, start=1):
        thr = [1100 + 15 * ((e * 7 + i) % 5) for e in range(1, epochs + 1)]
        write(os.path.join(HERE, "results_a/cpu-2core/image_classification/result_%d.txt" % i),
              run_log(base + i * 1200000, em, curve(epochs, final), thr, ok, 100 + i))
    # results_b: cpu-8core, a later revision, ~3.3x faster.
    for i in range(1, 6):
        epochs = 9 if i % 2 else 10
        em = 0.28 + 0.01 * (i % 3)
        thr = [3700 + 40 * ((e * 3 + i) % 4) for e in range(1, epochs + 1)]
        write(os.path.join(HERE, "results_b/cpu-8core/image_classification/result_%d.txt" % i),
              run_log(base + day + i * 600000, em, curve(epochs, 0.912 + 0.001 * i), thr, True,
                      200 + i, revision="def5678", hostname="big-host"))
    # results_xss: values that are HTML and script.
    evil = "<script>alert('xss')</script>"
    write(os.path.join(HERE, "results_xss/evil-sys/image_classification/result_1.txt"),
          run_log(base, 0.5, curve(3, 0.92), [900, 910, 920], True, 7,
                  revision="</script><script>alert(1)</script>",
                  benchmark="<img src=x onerror=alert(2)>",
                  log_name="<img src=x onerror=alert(2)>",
                  org=evil, config_extra={"note": "</script><b>bold</b>&amp;"},
                  hostname="<iframe src=\"javascript:alert(3)\">", metric="<i>top1</i>"))
    # results_broken: one good run, then a truncated log, garbage and an empty file.
    good = run_log(base, 0.9, curve(10, 0.912), [1000] * 10, True, 1)
    write(os.path.join(HERE, "results_broken/cpu-2core/image_classification/result_1.txt"), good)
    lines = good.splitlines()
    write(os.path.join(HERE, "results_broken/cpu-2core/image_classification/result_2.txt"),
          "\n".join(lines[:30]) + "\n" + lines[30][:40] + "\n")
    write(os.path.join(HERE, "results_broken/cpu-2core/image_classification/result_3.txt"),
          "this is not a log\n")
    write(os.path.join(HERE, "results_broken/cpu-2core/image_classification/result_4.txt"), "")


if __name__ == "__main__":
    main()
