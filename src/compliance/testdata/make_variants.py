# Writes variants/*.log: copies of good_closed_resnet.log (= shared/example_closed_resnet.log,
# which the official mlcommons/logging checker passes with --ruleset 4.0.0) with one defect
# each, and trainbench-style logs (with trainbench_scale) for the trainbench-1.0 ruleset.
# checker_test.cc holds the verdict each variant must get and the rule that must catch it.
# Run from this folder: python3 make_variants.py
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
TOKEN = ":::MLLOG "


def load():
    with open(os.path.join(HERE, "good_closed_resnet.log")) as f:
        return [json.loads(l[len(TOKEN):]) for l in f if l.startswith(TOKEN)]


def dump(events):
    return "".join(TOKEN + json.dumps(e) + "\n" for e in events)


def index(events, key, nth=0):
    return [i for i, e in enumerate(events) if e["key"] == key][nth]


def event(events, key):
    return events[index(events, key)]


def without(events, key):
    return [e for e in events if e["key"] != key]


def moved_after(events, key, after):
    e = events.pop(index(events, key))
    events.insert(index(events, after) + 1, e)
    return events


def shifted_from(events, key, delta_ms):
    for e in events[index(events, key):]:
        e["time_ms"] += delta_ms
    return events


def init_limit(events, minutes_ms):
    # init_stop (and everything after it) at first init_start + minutes_ms
    delta = event(events, "init_start")["time_ms"] + minutes_ms - event(events, "init_stop")["time_ms"]
    return shifted_from(events, "init_stop", delta)


def set_value(events, key, value):
    event(events, key)["value"] = value
    return events


def second_value(events, key, value):
    events[index(events, key, 1)]["value"] = value
    return events


def set_metadata(events, key, **metadata):
    event(events, key)["metadata"].update(metadata)
    return events


def duplicated(events, key, **metadata):
    e = json.loads(json.dumps(event(events, key)))
    e["metadata"].update(metadata)
    events.insert(index(events, key) + 1, e)
    return events


def trainbench(events, scale="mini", accuracy=0.9312):
    # trainbench logs trainbench_scale after the seed; the mini target is 0.91.
    e = {"namespace": "", "time_ms": event(events, "seed")["time_ms"],
         "event_type": "POINT_IN_TIME", "key": "trainbench_scale", "value": scale,
         "metadata": {"file": "train.cc", "lineno": 17}}
    events.insert(index(events, "seed") + 1, e)
    if scale == "mini":
        # The mini closed rules demand the definition's fixed label smoothing, which trainbench
        # logs and the official example does not.
        ls = dict(e, key="label_smoothing", value=0.0)
        events.insert(index(events, "trainbench_scale") + 1, ls)
    return set_value(events, "eval_accuracy", accuracy)


def drop_metadata(events, key, field):
    del event(events, key)["metadata"][field]
    return events


VARIANTS = {
    # --- one defect each on the official example (ruleset 4.0.0) ---
    "missing_init_stop": lambda ev: without(ev, "init_stop"),
    "run_start_before_init_stop": lambda ev: moved_after(ev, "init_stop", "run_start"),
    "division_after_init_stop": lambda ev: moved_after(ev, "submission_division", "init_stop"),
    "duplicated_run_stop": lambda ev: duplicated(ev, "run_stop"),
    "duplicated_run_stop_aborted": lambda ev: duplicated(ev, "run_stop", status="aborted"),
    "run_stop_without_status": lambda ev: drop_metadata(ev, "run_stop", "status"),
    "batch_size_string": lambda ev: set_value(ev, "global_batch_size", "3264"),
    "open_batch_size_string": lambda ev: set_value(
        set_value(ev, "global_batch_size", "3264"), "submission_division", "open"),
    "opt_name_adam": lambda ev: set_value(ev, "opt_name", "adam"),
    "accuracy_below_target": lambda ev: set_value(ev, "eval_accuracy", 0.7512),
    "accuracy_without_epoch_num": lambda ev: drop_metadata(ev, "eval_accuracy", "epoch_num"),
    "init_time_over_limit": lambda ev: init_limit(ev, 30 * 60 * 1000 + 1),
    "init_time_at_limit": lambda ev: init_limit(ev, 30 * 60 * 1000),
    "init_time_below_limit": lambda ev: init_limit(ev, 30 * 60 * 1000 - 1),
    "open_init_time_31_min": lambda ev: set_value(init_limit(ev, 31 * 60 * 1000),
                                                  "submission_division", "open"),
    "missing_submission_org": lambda ev: without(ev, "submission_org"),
    "submission_org_twice_different": lambda ev: second_value(
        duplicated(ev, "submission_org"), "submission_org", "OtherOrg"),
    "invalid_division": lambda ev: set_value(ev, "submission_division", "private"),
    # malformed_line is written below: the seed line with its JSON cut short.
    # --- trainbench-1.0 ---
    "tb_good_mini": lambda ev: trainbench(ev),
    "tb_mini_below_target": lambda ev: trainbench(ev, accuracy=0.9012),
    "tb_mini_aborted_below_target": lambda ev: set_metadata(
        trainbench(ev, accuracy=0.5012), "run_stop", status="aborted"),
    "tb_full_below_759": lambda ev: trainbench(ev, scale="full", accuracy=0.7512),
    "tb_missing_seed": lambda ev: without(trainbench(ev), "seed"),
    "tb_seed_string": lambda ev: set_value(trainbench(ev), "seed", "12345"),
    "tb_missing_scale": lambda ev: ev,
    "tb_unknown_scale": lambda ev: trainbench(ev, scale="huge"),
    "tb_eval_after_run_stop": lambda ev: moved_after(trainbench(ev), "run_stop", "eval_stop"),
    "tb_duplicated_run_stop": lambda ev: duplicated(trainbench(ev), "run_stop"),
    "tb_duplicated_run_stop_aborted": lambda ev: duplicated(trainbench(ev), "run_stop",
                                                            status="aborted"),
    "tb_batch_size_float": lambda ev: set_value(trainbench(ev), "global_batch_size", 3264.0),
    "tb_open_batch_size_string": lambda ev: set_value(set_value(
        trainbench(ev), "global_batch_size", "3264"), "submission_division", "open"),
}


def harness_log(status="success", accuracies=(0.8712, 0.9213), opt="lars"):
    # The shape of a log written by src/train/harness.cc for image_classification at the mini
    # scale: trainbench keys during init, train/eval_samples after run_start, tracked_stats,
    # samples_count metadata.
    t = [1700000000000]
    events = []

    def ev(kind, key, value=None, **md):
        t[0] += 7
        m = {"file": "harness.cc", "lineno": 100 + len(events)}
        m.update(md)
        events.append({"namespace": "", "time_ms": t[0], "event_type": kind, "key": key,
                       "value": value, "metadata": m})

    P, S, E = "POINT_IN_TIME", "INTERVAL_START", "INTERVAL_END"
    ev(P, "cache_clear", True)
    ev(S, "init_start")
    for k, v in [("submission_benchmark", "resnet"), ("submission_org", "trainbench"),
                 ("submission_division", "closed"), ("submission_status", "onprem"),
                 ("submission_platform", "cpu_host"), ("trainbench_benchmark", "image_classification"),
                 ("trainbench_scale", "mini")]:
        ev(P, k, v)
    ev(P, "trainbench_quality_target", 0.91, metric="top1")
    ev(P, "seed", 1234567)
    ev(P, "trainbench_config_requested", {"opt_name": opt})
    ev(P, "trainbench_config_effective", {"batch_size": 128, "opt_name": opt, "seed": 1234567})
    ev(P, "trainbench_provenance", {"git_revision": "abc123", "torch": "2.3"})
    ev(P, "global_batch_size", 128)
    ev(P, "gradient_accumulation_steps", 1)
    ev(P, "opt_name", opt)
    p = "lars_opt_"
    for k, v in [(p + "base_learning_rate", 0.1), (p + "end_learning_rate", 0.0001),
                 (p + "learning_rate_decay_poly_power", 2.0), (p + "learning_rate_decay_steps", 6562),
                 (p + "weight_decay", 0.0005), (p + "momentum", 0.9), ("model_bn_span", 128),
                 ("lars_epsilon", 0.0), ("lars_opt_learning_rate_warmup_epochs", 1.0),
                 ("label_smoothing", 0.0)]:
        ev(P, k, v)
    ev(E, "init_stop")
    ev(S, "run_start")
    ev(P, "train_samples", 60000)
    ev(P, "eval_samples", 10000)
    for epoch, acc in enumerate(accuracies, start=1):
        ev(S, "block_start", first_epoch_num=epoch, epoch_count=1)
        ev(S, "epoch_start", epoch_num=epoch)
        ev(E, "epoch_stop", epoch_num=epoch, samples_count=59904)
        ev(P, "tracked_stats", {"throughput": 1500.5, "steps": 468, "train_loss": 0.31},
           epoch_num=epoch)
        ev(E, "block_stop", first_epoch_num=epoch)
        ev(S, "eval_start", epoch_num=epoch)
        ev(E, "eval_stop", epoch_num=epoch, samples_count=10000)
        ev(P, "eval_accuracy", acc, epoch_num=epoch)
    ev(E, "run_stop", status=status)
    return events


def main():
    out = os.path.join(HERE, "variants")
    os.makedirs(out, exist_ok=True)
    for name, make in VARIANTS.items():
        with open(os.path.join(out, name + ".log"), "w") as f:
            f.write(dump(make(load())))
    with open(os.path.join(out, "tb_harness_mini_lars.log"), "w") as f:
        f.write(dump(harness_log()))
    with open(os.path.join(out, "tb_harness_mini_lars_aborted.log"), "w") as f:
        f.write(dump(harness_log(status="aborted", accuracies=(0.6, 0.7, 0.8))))
    lines = dump(load()).splitlines(keepends=True)
    i = [n for n, l in enumerate(lines) if '"key": "seed"' in l][0]
    lines[i] = lines[i].rstrip("\n")[:-2] + "\n"  # drop the closing braces
    with open(os.path.join(out, "malformed_line.log"), "w") as f:
        f.write("".join(lines))


if __name__ == "__main__":
    main()
