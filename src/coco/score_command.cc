#include "coco/score_command.h"

#include <sstream>

#include "coco/coco_dataset.h"

namespace trainbench::coco {

core::Json CocoScoreToJson(const CocoStats& s, IouType t, long long images, long long annotations,
                           long long detections) {
  core::Json j;
  j["schema_version"] = kScoreCocoSchemaVersion;
  j["iou_type"] = IouTypeName(t);
  core::Json stats = core::Json::object();
  core::Json list = core::Json::array();
  for (size_t i = 0; i < s.values.size(); ++i) {
    stats[CocoStatNames()[i]] = s.values[i];
    list.push_back(s.values[i]);
  }
  j["stats"] = std::move(stats);
  j["stats_list"] = std::move(list);
  j["images"] = images;
  j["annotations"] = annotations;
  j["detections"] = detections;
  core::Json lines = core::Json::array();
  std::istringstream text(FormatCocoSummary(s));
  for (std::string line; std::getline(text, line);) lines.push_back(line);
  j["summary"] = std::move(lines);
  return j;
}

int RunScoreCocoCommand(const ScoreCocoOptions& o, std::ostream& out, std::ostream& err) {
  const IouType type = ParseIouType(o.iou_type);
  const CocoDataset gt = ReadCocoDataset(o.gt_file);
  std::vector<std::string> warnings;
  const std::vector<Detection> dets = ReadCocoResults(o.results_file, gt, &warnings);
  // A detector with the box convention wrong gets a warning for every detection; the first few
  // show the problem.
  constexpr size_t kMaxWarnings = 10;
  for (size_t i = 0; i < warnings.size() && i < kMaxWarnings; ++i) {
    err << "trainbench: warning: " << warnings[i] << "\n";
  }
  if (warnings.size() > kMaxWarnings) {
    err << "trainbench: warning: " << o.results_file << ": " << warnings.size() - kMaxWarnings
        << " more detections with such boxes\n";
  }
  const CocoStats stats = EvaluateDetections(gt, dets, type);
  if (o.json) {
    out << CocoScoreToJson(stats, type, static_cast<long long>(gt.images.size()),
                           static_cast<long long>(gt.annotations.size()),
                           static_cast<long long>(dets.size()))
               .dump(2)
        << "\n";
  } else {
    out << FormatCocoSummary(stats);
  }
  return 0;
}

}  // namespace trainbench::coco
