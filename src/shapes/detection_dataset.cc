#include "shapes/detection_dataset.h"

#include <chrono>
#include <cmath>
#include <cstdarg>
#include <filesystem>

#include "core/atomic_file.h"
#include "core/error.h"
#include "data/jpeg_codec.h"
#if __has_include(<jconfig.h>)
#include <jconfig.h>  // LIBJPEG_TURBO_VERSION, JPEG_LIB_VERSION
#endif

namespace trainbench::shapes {

namespace fs = std::filesystem;

namespace {

constexpr const char* kSplitDirs[2] = {"train2017", "val2017"};
constexpr const char* kPartialMarker = ".detection_mini.partial";

__attribute__((format(printf, 2, 3))) void Say(std::FILE* f, const char* fmt, ...) {
  if (!f) return;
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(f, fmt, ap);
  va_end(ap);
  std::fflush(f);
}

double Since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string AnnotationsName(int split) {
  return std::string("annotations/instances_") + kSplitDirs[split] + ".json";
}

// Integral coordinates as JSON integers (traced polygons), others as doubles.
core::Json Number(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return static_cast<long long>(v);
  return v;
}

// The first key whose value differs between a and b ("shapes.width"), or "" when equal.
std::string FirstDifference(const core::Json& a, const core::Json& b,
                            const std::string& prefix = "") {
  if (a.is_object() && b.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      const std::string key = prefix + it.key();
      if (!b.contains(it.key())) return key;
      std::string d = FirstDifference(it.value(), b[it.key()], key + ".");
      if (!d.empty()) return d;
    }
    for (auto it = b.begin(); it != b.end(); ++it) {
      if (!a.contains(it.key())) return prefix + it.key();
    }
    return "";
  }
  if (a != b) return prefix.empty() ? "(value)" : prefix.substr(0, prefix.size() - 1);
  return "";
}

std::string ValueAt(const core::Json& j, const std::string& dotted) {
  const core::Json* cur = &j;
  size_t start = 0;
  while (start <= dotted.size()) {
    size_t end = dotted.find('.', start);
    if (end == std::string::npos) end = dotted.size();
    const std::string k = dotted.substr(start, end - start);
    if (!cur->is_object() || !cur->contains(k)) return "(absent)";
    cur = &(*cur)[k];
    start = end + 1;
  }
  return cur->dump();
}

core::Json FileFacts(const std::string& bytes) {
  return {{"bytes", bytes.size()}, {"fnv1a64", Fnv1a64Hex(bytes)}};
}

// dataset.json: indented, except "files", one file per line (thousands of them).
std::string FormatManifest(const core::Json& d) {
  std::string s = "{";
  bool first = true;
  for (auto it = d.begin(); it != d.end(); ++it) {
    s += first ? "\n  " : ",\n  ";
    first = false;
    s += core::Json(it.key()).dump() + ": ";
    if (it.key() == "files") {
      s += "{";
      bool f1 = true;
      for (auto f = it.value().begin(); f != it.value().end(); ++f) {
        s += f1 ? "\n    " : ",\n    ";
        f1 = false;
        s += core::Json(f.key()).dump() + ": " + f.value().dump();
      }
      s += "\n  }";
    } else {
      std::string v = it.value().dump(2);
      for (size_t p = v.find('\n'); p != std::string::npos; p = v.find('\n', p + 3))
        v.replace(p, 1, "\n  ");
      s += v;
    }
  }
  return s + "\n}\n";
}

}  // namespace

std::string Fnv1a64Hex(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

void ValidateDetectionMiniOptions(const DetectionMiniOptions& o) {
  if (o.train_images < 1 || o.train_images > 10000000)
    throw core::Error("detection option train_images: must be in [1, 10000000]");
  if (o.val_images < 1 || o.val_images > 10000000)
    throw core::Error("detection option val_images: must be in [1, 10000000]");
  if (o.jpeg_quality < 1 || o.jpeg_quality > 100)
    throw core::Error("detection option jpeg_quality: must be in [1, 100]");
  ValidateShapesOptions(o.shapes);
}

core::Json DetectionMiniOptionsJson(const DetectionMiniOptions& o) {
  const ShapesOptions& s = o.shapes;
  core::Json j;
  j["seed"] = o.seed;
  j["train_images"] = o.train_images;
  j["val_images"] = o.val_images;
  j["jpeg_quality"] = o.jpeg_quality;
  j["shapes"] = {{"width", s.width},
                 {"height", s.height},
                 {"min_objects", s.min_objects},
                 {"max_objects", s.max_objects},
                 {"min_size", s.min_size},
                 {"max_size", s.max_size},
                 {"max_aspect", s.max_aspect},
                 {"max_occlusion", s.max_occlusion},
                 {"min_visible_area", s.min_visible_area},
                 {"min_contrast", s.min_contrast},
                 {"noise", s.noise},
                 {"antialias", s.antialias}};
  return j;
}

std::string CocoFileName(long long id) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%012lld.jpg", id);
  return buf;
}

RenderedSplit RenderSplit(const DetectionMiniOptions& o, int split, long long images) {
  const ShapesOptions& so = o.shapes;
  RenderedSplit out;
  core::Json& d = out.instances;
  d["info"] = {{"description",
                "trainbench detection_mini: rendered shapes (docs/datasets/detection_mini.md)"},
               {"url", ""},
               {"version", std::to_string(kDetectionMiniGeneratorVersion)},
               {"year", 2017},
               {"contributor", "trainbench prepare detection"},
               {"date_created", ""}};
  d["licenses"] = core::Json::array(
      {{{"id", 1}, {"name", "generated by trainbench, no rights reserved"}, {"url", ""}}});
  core::Json imgs = core::Json::array(), anns = core::Json::array();
  // Statistics: objects per image, per class, COCO area ranges (absolute, and scaled to this
  // image size from COCO's typical 640x480), traced polygons, shapes left out.
  std::vector<long long> per_image(static_cast<size_t>(so.max_objects) + 1, 0),
      per_class(kNumShapeClasses, 0);
  long long abs_ranges[3] = {0, 0, 0}, rel_ranges[3] = {0, 0, 0}, traced = 0, left_out = 0,
            sampled = 0;
  const double rel = static_cast<double>(so.width) * so.height / (640.0 * 480.0);
  long long ann_id = 0;
  uint64_t pixel_hash = 0xcbf29ce484222325ull;
  for (long long i = 0; i < images; ++i) {
    auto t = std::chrono::steady_clock::now();
    const Scene scene = SampleScene(o.seed, split, i, so);
    const RenderedImage r = RenderScene(scene, so);
    out.render_s += Since(t);
    for (uint8_t b : r.image.data) pixel_hash = (pixel_hash ^ b) * 0x100000001b3ull;
    t = std::chrono::steady_clock::now();
    const std::vector<uint8_t> jpeg = data::EncodeJpeg(r.image, o.jpeg_quality);
    out.jpegs.emplace_back(jpeg.begin(), jpeg.end());
    out.encode_s += Since(t);
    const long long id = i + 1;
    imgs.push_back({{"id", id},
                    {"file_name", CocoFileName(id)},
                    {"width", so.width},
                    {"height", so.height},
                    {"license", 1}});
    for (const ObjectAnnotation& a : r.objects) {
      core::Json seg = core::Json::array();
      for (const Polygon& p : a.segmentation) {
        core::Json pj = core::Json::array();
        for (double v : p) pj.push_back(Number(v));
        seg.push_back(std::move(pj));
      }
      anns.push_back({{"id", ++ann_id},
                      {"image_id", id},
                      {"category_id", a.category + 1},
                      {"segmentation", std::move(seg)},
                      {"area", a.area},
                      {"bbox", {a.bbox[0], a.bbox[1], a.bbox[2], a.bbox[3]}},
                      {"iscrowd", 0}});
      ++per_class[static_cast<size_t>(a.category)];
      const double area = static_cast<double>(a.area);
      ++abs_ranges[area < 32 * 32 ? 0 : area < 96 * 96 ? 1 : 2];
      ++rel_ranges[area < 32 * 32 * rel ? 0 : area < 96 * 96 * rel ? 1 : 2];
      traced += a.traced;
    }
    ++per_image[r.objects.size()];
    left_out += r.left_out;
    sampled += static_cast<long long>(scene.objects.size());
  }
  d["images"] = std::move(imgs);
  const long long objects = ann_id;
  d["annotations"] = std::move(anns);
  core::Json cats = core::Json::array();
  for (int c = 0; c < kNumShapeClasses; ++c)
    cats.push_back({{"id", c + 1}, {"name", ShapeClassName(c)}, {"supercategory", "shape"}});
  d["categories"] = cats;

  core::Json& s = out.stats;
  s["images"] = images;
  s["objects"] = objects;
  s["shapes_sampled"] = sampled;
  s["shapes_left_out"] = left_out;
  s["objects_per_image"] = per_image;
  core::Json pc;
  for (int c = 0; c < kNumShapeClasses; ++c)
    pc[ShapeClassName(c)] = per_class[static_cast<size_t>(c)];
  s["objects_per_class"] = pc;
  s["area_coco_absolute"] = {{"small_lt_1024", abs_ranges[0]},
                             {"medium_lt_9216", abs_ranges[1]},
                             {"large", abs_ranges[2]}};
  s["area_coco_relative"] = {{"small_lt", 1024 * rel},
                             {"medium_lt", 9216 * rel},
                             {"small", rel_ranges[0]},
                             {"medium", rel_ranges[1]},
                             {"large", rel_ranges[2]}};
  s["traced_polygons"] = traced;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(pixel_hash));
  out.pixels_fnv1a64 = hex;
  return out;
}

std::string VerifyDetectionMini(const std::string& dir, const DetectionMiniOptions& o) {
  const std::string json_path = dir + "/dataset.json";
  core::Json d;
  try {
    d = core::Json::parse(core::ReadFile(json_path));
  } catch (const core::Json::exception& e) {
    return json_path + " is not valid JSON (" + e.what() + ")";
  }
  if (d.value("dataset", "") != "detection_mini")
    return json_path + " is not a detection_mini manifest";
  if (d.value("generator_version", 0) != kDetectionMiniGeneratorVersion)
    return "built by generator version " + d.value("generator_version", core::Json(0)).dump() +
           ", this one is " + std::to_string(kDetectionMiniGeneratorVersion);
  const core::Json want = DetectionMiniOptionsJson(o);
  const core::Json have = d.value("options", core::Json::object());
  const std::string diff = FirstDifference(want, have);
  if (!diff.empty())
    return "options." + diff + " is " + ValueAt(have, diff) + ", requested " + ValueAt(want, diff);
  const core::Json files = d.value("files", core::Json::object());
  const size_t expected = static_cast<size_t>(o.train_images + o.val_images) + 2;
  if (files.size() != expected)
    return json_path + " lists " + std::to_string(files.size()) + " files, these options make " +
           std::to_string(expected);
  for (auto it = files.begin(); it != files.end(); ++it) {
    const std::string path = dir + "/" + it.key();
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return it.key() + " is missing";
    if (FileFacts(core::ReadFile(path)) != it.value())
      return it.key() + " differs from what dataset.json records";
  }
  return "";
}

DetectionPrepareResult PrepareDetectionMini(const std::string& dir, const DetectionMiniOptions& o,
                                            std::FILE* progress) {
  ValidateDetectionMiniOptions(o);
  DetectionPrepareResult res;
  const std::string json_path = dir + "/dataset.json";
  std::error_code ec;
  if (fs::exists(json_path, ec)) {
    res.rebuilt_because = VerifyDetectionMini(dir, o);
    if (res.rebuilt_because.empty()) {
      res.dataset = core::Json::parse(core::ReadFile(json_path));
      return res;
    }
    bool ours = false;
    try {
      ours = core::Json::parse(core::ReadFile(json_path)).value("dataset", "") == "detection_mini";
    } catch (const core::Json::exception&) {
    }
    if (!ours)
      throw core::FileError(
          json_path, 0,
          "is not the manifest of a detection_mini folder; choose another folder with --data");
    Say(progress, "  %s: %s; rebuilding\n", dir.c_str(), res.rebuilt_because.c_str());
  } else if (fs::exists(dir, ec) && !fs::is_empty(dir, ec) &&
             !fs::exists(dir + "/" + kPartialMarker, ec)) {
    throw core::FileError(dir, 0,
                          "is not empty and holds no detection_mini dataset.json; choose an empty "
                          "or new folder with --data");
  }
  core::MakeDirs(dir);
  core::WriteFileAtomically(dir + "/" + kPartialMarker,
                            "an interrupted `trainbench prepare detection`; safe to remove\n");
  fs::remove(json_path, ec);
  for (const char* sub : {"train2017", "val2017", "annotations"})
    fs::remove_all(dir + "/" + sub, ec);
  for (const char* sub : {"train2017", "val2017", "annotations"}) core::MakeDirs(dir + "/" + sub);

  const auto t0 = std::chrono::steady_clock::now();
  core::Json files = core::Json::object(), stats;
  core::Json counts, pixels;
  for (int split = 0; split < 2; ++split) {
    const long long n = split == 0 ? o.train_images : o.val_images;
    const auto ts = std::chrono::steady_clock::now();
    RenderedSplit r = RenderSplit(o, split, n);
    for (size_t i = 0; i < r.jpegs.size(); ++i) {
      const std::string name =
          std::string(kSplitDirs[split]) + "/" + CocoFileName(static_cast<long long>(i) + 1);
      core::WriteFileAtomically(dir + "/" + name, r.jpegs[i]);
      files[name] = FileFacts(r.jpegs[i]);
    }
    const std::string ann = r.instances.dump() + "\n";
    core::WriteFileAtomically(dir + "/" + AnnotationsName(split), ann);
    files[AnnotationsName(split)] = FileFacts(ann);
    res.render_s += r.render_s;
    res.encode_s += r.encode_s;
    long long bytes = 0;
    for (const std::string& j : r.jpegs) bytes += static_cast<long long>(j.size());
    const double s = Since(ts);
    Say(progress,
        "  %s: %lld images, %lld objects, %.1f MB of JPEG + %.1f MB of annotations in %.1f s (%.0f "
        "images/s; rendering %.0f images/s)\n",
        kSplitDirs[split], n, r.stats.value("objects", 0LL), bytes / 1e6, ann.size() / 1e6, s,
        n / s, n / r.render_s);
    counts[std::string(kSplitDirs[split]) + "_images"] = n;
    counts[std::string(kSplitDirs[split]) + "_objects"] = r.stats["objects"];
    counts[std::string(kSplitDirs[split]) + "_jpeg_bytes"] = bytes;
    stats[kSplitDirs[split]] = std::move(r.stats);
    pixels[kSplitDirs[split]] = r.pixels_fnv1a64;
  }
  res.seconds = Since(t0);
  core::Json& d = res.dataset;
  d["schema_version"] = 1;
  d["dataset"] = "detection_mini";
  d["generator_version"] = kDetectionMiniGeneratorVersion;
  d["layout"] = "COCO 2017: train2017/, val2017/, annotations/instances_{train,val}2017.json";
  d["options"] = DetectionMiniOptionsJson(o);
  d["counts"] = counts;
  d["statistics"] = stats;
  d["pixels_fnv1a64"] = pixels;
#if defined(LIBJPEG_TURBO_VERSION)
#define TB_STR2(x) #x
#define TB_STR(x) TB_STR2(x)
  d["jpeg_encoder"] = "libjpeg-turbo " TB_STR(LIBJPEG_TURBO_VERSION) " (headers built against)";
#elif defined(JPEG_LIB_VERSION)
  d["jpeg_encoder"] = "libjpeg " + std::to_string(JPEG_LIB_VERSION) + " (headers built against)";
#else
  d["jpeg_encoder"] = "libjpeg";
#endif
  d["files"] = files;
  core::WriteFileAtomically(json_path, FormatManifest(d));
  fs::remove(dir + "/" + kPartialMarker, ec);
  res.generated = true;
  return res;
}

CocoFolderCheck CheckCoco2017Folder(const std::string& dir) {
  CocoFolderCheck c;
  std::error_code ec;
  for (int split = 0; split < 2; ++split) {
    const std::string ann = dir + "/" + AnnotationsName(split);
    if (!fs::is_regular_file(ann, ec)) c.missing.push_back(ann);
  }
  for (int split = 0; split < 2; ++split) {
    const std::string sub = dir + "/" + kSplitDirs[split];
    if (!fs::is_directory(sub, ec)) {
      c.missing.push_back(sub + "/");
      continue;
    }
    long long n = 0;
    for (const auto& e : fs::directory_iterator(sub, ec)) {
      if (e.path().extension() == ".jpg") ++n;
    }
    (split == 0 ? c.train_images : c.val_images) = n;
    if (n == 0) c.missing.push_back(sub + "/*.jpg");
  }
  return c;
}

}  // namespace trainbench::shapes
