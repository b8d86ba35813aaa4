# Runs the official MLPerf compliance checker (mlcommons/logging, mlperf_logging.compliance_checker)
# on every log of the conformance corpus, for every ruleset trainbench mirrors, and writes
# official_verdicts.tsv: log (relative to src/compliance/testdata/), ruleset, verdict, and what
# the official checker reported. The checker's code is not part of this repository: pass the
# folder of a checkout of https://github.com/mlcommons/logging (run with Debian's python3-yaml).
#
#   python3 official_verdicts.py /path/to/mlcommons-logging [--python /usr/bin/python3]
#
# Verdicts: SUCCESS (exit 0), FAILED (exit 1 after its report), CRASH (the checker stopped with a
# Python exception, e.g. a TypeError in a target expression; the log is not accepted either).
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.dirname(HERE)
RULESETS = ["0.7.0", "4.0.0"]


def corpus():
    logs = []
    for d, _, files in os.walk(TESTDATA):
        for f in files:
            if f.endswith(".log"):
                logs.append(os.path.relpath(os.path.join(d, f), TESTDATA))
    return sorted(logs)


def summarize(output):
    """The official messages, one short phrase each, joined with '; '."""
    found = []
    for pat in (r"CHECK for '(\w+)' failed in line (\d+):[^\n]*\n[^\n]*\nfailed test: ([^\n]*)",
                r"Failed executing CHECK code:\n([^\n]*)\ntriggered by line:\n[^\n]*\"key\": \"(\w+)\"",
                r"Required (EXACTLY_ONE|AT_LEAST_ONE|AT_LEAST\(\d+\)) occurrence of ('[^']*'(?: or '[^']*')*)[^\n]*",
                r"Failed checks for (\w+) : ([^\n]*)",
                r"(Log lines had parsing errors\.)",
                r"Could not find config file: \S*/(\S+)",
                r"(No log lines detected)"):
        for m in re.finditer(pat, output):
            text = " ".join(g.strip() for g in m.groups())
            if text not in found:
                found.append(text)
    return "; ".join(found)[:300] or "-"


def run(logging_dir, python, log, ruleset):
    with tempfile.NamedTemporaryFile(suffix=".log") as out:
        p = subprocess.run([python, "-m", "mlperf_logging.compliance_checker", "--usage", "training",
                            "--ruleset", ruleset, "--log_output", out.name,
                            os.path.join(TESTDATA, log)],
                           cwd=logging_dir, capture_output=True, text=True)
    text = p.stdout + p.stderr
    if "Traceback (most recent call last)" in text:
        last = [l for l in text.strip().splitlines() if l.strip()][-1]
        return "CRASH", (summarize(text) + " | " if summarize(text) != "-" else "") + last[:150]
    if p.returncode == 0 and "SUCCESS" in text:
        warn = re.findall(r"Required EXACTLY_ONE occurrence of '(\w+)' but found (\d+)", text)
        return "SUCCESS", ("warning: " + ", ".join("%s x%s" % w for w in warn)) if warn else "-"
    return "FAILED", summarize(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("logging_dir", help="a checkout of mlcommons/logging")
    ap.add_argument("--python", default="/usr/bin/python3")
    args = ap.parse_args()
    rev = subprocess.run(["git", "-C", args.logging_dir, "log", "-1", "--format=%H %s"],
                         capture_output=True, text=True).stdout.strip()
    rows = []
    for log in corpus():
        for rs in RULESETS:
            verdict, what = run(args.logging_dir, args.python, log, rs)
            rows.append((log, rs, verdict, what.replace("\t", " ")))
            print("%-60s %s %s" % (log, rs, verdict), file=sys.stderr)
    with open(os.path.join(HERE, "official_verdicts.tsv"), "w") as f:
        f.write("# The official MLPerf compliance checker's verdict on every log of the conformance\n"
                "# corpus (every *.log under src/compliance/testdata/), per ruleset. Written by\n"
                "# official_verdicts.py with mlcommons/logging at %s,\n"
                "# run with %s. checker_test.cc requires `trainbench check --ruleset R` to pass\n"
                "# exactly the SUCCESS rows (FAILED and CRASH: the log is not accepted).\n"
                "# Columns: log, ruleset, verdict, what the official checker reported.\n" % (rev, args.python))
        for r in rows:
            f.write("\t".join(r) + "\n")


if __name__ == "__main__":
    main()
