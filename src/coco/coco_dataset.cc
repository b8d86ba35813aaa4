#include "coco/coco_dataset.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <unordered_set>
#include <utility>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/json.h"
#include "core/regular_file.h"

namespace trainbench::coco {
namespace {

using nlohmann::json;

// How much of a value from the file an error message quotes. A value may be a list of a million
// numbers or 512 levels deep; dumping it whole would make a message of megabytes (and nlohmann's
// dump recurses per level).
constexpr size_t kExcerptChars = 80;

// Appends v's JSON text to *out, stopping once *out holds more than `limit` characters. Each level
// adds a bracket before it recurses, so the recursion is at most `limit` deep.
void AppendExcerpt(const json& v, size_t limit, std::string* out) {
  if (out->size() > limit) return;
  const auto text = [](const std::string& s, size_t n) {
    // A cut inside a UTF-8 sequence is replaced, not thrown on (error_handler_t::replace).
    return json(s.size() > n ? s.substr(0, n) : s)
        .dump(-1, ' ', false, json::error_handler_t::replace);
  };
  if (v.is_string()) {
    out->append(text(v.get_ref<const std::string&>(), limit));
    return;
  }
  if (!v.is_structured()) {
    out->append(v.dump(-1, ' ', false, json::error_handler_t::replace));
    return;
  }
  out->push_back(v.is_array() ? '[' : '{');
  bool first = true;
  for (auto it = v.begin(); it != v.end() && out->size() <= limit; ++it) {
    if (!first) out->append(", ");
    first = false;
    if (v.is_object()) out->append(text(it.key(), limit) + ": ");
    AppendExcerpt(*it, limit, out);
  }
  out->push_back(v.is_array() ? ']' : '}');
}

// v's JSON text for an error message: whole when short, else its first kExcerptChars
// characters and "...".
std::string Excerpt(const json& v) {
  std::string s;
  AppendExcerpt(v, kExcerptChars, &s);
  if (s.size() <= kExcerptChars) return s;
  size_t cut = kExcerptChars;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
  return s.substr(0, cut) + "...";
}

// A SAX consumer that hands over, one at a time as a small DOM, the elements of the top-level
// arrays it is asked for ("images", ... of a top-level object, or the items of a top-level
// list) and builds nothing else.
class ElementSax : public nlohmann::json_sax<json> {
 public:
  enum class Layout { kObjectOfArrays, kArray };
  using Callback = std::function<void(const std::string& section, size_t index, json& element)>;

  // `offset` gives the byte offset of the bracket just read, for the nesting error.
  ElementSax(Layout layout, std::vector<std::string> sections, Callback cb, std::string source,
             std::function<long long()> offset)
      : layout_(layout),
        sections_(std::move(sections)),
        cb_(std::move(cb)),
        source_(std::move(source)),
        offset_(std::move(offset)) {}

  bool null() override { return Scalar(json(nullptr)); }
  bool boolean(bool v) override { return Scalar(json(v)); }
  bool number_integer(number_integer_t v) override { return Scalar(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return Scalar(json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return Scalar(json(v)); }
  bool string(string_t& v) override { return Scalar(json(std::move(v))); }
  bool binary(binary_t&) override { return Scalar(json(nullptr)); }
  bool start_object(std::size_t) override { return Open(true); }
  bool start_array(std::size_t) override { return Open(false); }
  bool end_object() override { return Close(); }
  bool end_array() override { return Close(); }
  bool key(string_t& k) override {
    if (capturing_) {
      key_ = k;
    } else if (layout_ == Layout::kObjectOfArrays && depth_ == 1) {
      section_ = k;
      wanted_ = false;
      for (const auto& s : sections_) wanted_ = wanted_ || s == k;
    }
    return true;
  }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    std::string what = ex.what();
    const std::string marker = "parse error";
    const size_t at = what.find(marker);
    if (at != std::string::npos) what = what.substr(at);
    // nlohmann quotes the token it last read, which may be a string of any length.
    constexpr size_t kMaxWhat = 240;
    if (what.size() > kMaxWhat) what = what.substr(0, kMaxWhat) + "...";
    throw core::OffsetError(source_, static_cast<long long>(position),
                            "JSON syntax error: " + what);
  }

  bool complete() const { return depth_ == 0 && seen_top_; }

 private:
  // The depth at which elements start: 3 inside {"images": [ {...} ]}, 2 inside [ {...} ].
  int ElementDepth() const { return layout_ == Layout::kObjectOfArrays ? 3 : 2; }
  bool InWantedArray() const {
    return layout_ == Layout::kArray ? depth_ == 1 : (depth_ == 2 && wanted_ && in_array_);
  }

  bool Scalar(json v) {
    if (capturing_) {
      Put(std::move(v));
      return true;
    }
    if (depth_ == 0) TopLevelError();
    if (layout_ == Layout::kObjectOfArrays && depth_ == 1 && wanted_) NotAList();
    if (InWantedArray()) {
      json element = std::move(v);
      cb_(section_, index_++, element);
    }
    return true;
  }

  bool Open(bool is_object) {
    // The same bound as core::ParseJson: the element is built as a DOM, whose dump (for an
    // error message) and copies recurse per level.
    if (depth_ >= core::kMaxJsonDepth) TooDeep();
    if (capturing_) {
      json& top = *stack_.back();
      json fresh = is_object ? json::object() : json::array();
      json* child;
      if (top.is_array()) {
        top.push_back(std::move(fresh));
        child = &top.back();
      } else {
        child = &(top[key_] = std::move(fresh));
      }
      stack_.push_back(child);
      ++depth_;
      return true;
    }
    if (depth_ == 0) {
      seen_top_ = true;
      if (is_object != (layout_ == Layout::kObjectOfArrays)) TopLevelError();
      if (layout_ == Layout::kArray) in_array_ = true;
    } else if (layout_ == Layout::kObjectOfArrays && depth_ == 1 && wanted_) {
      if (is_object) NotAList();
      in_array_ = true;
      index_ = 0;
    } else if (InWantedArray()) {
      element_ = is_object ? json::object() : json::array();
      stack_.assign(1, &element_);
      capturing_ = true;
    }
    ++depth_;
    return true;
  }

  bool Close() {
    --depth_;
    if (capturing_) {
      stack_.pop_back();
      if (stack_.empty()) {
        capturing_ = false;
        cb_(section_, index_++, element_);
        element_ = json();
      }
      return true;
    }
    if (layout_ == Layout::kObjectOfArrays && depth_ == 1) in_array_ = false;
    return true;
  }

  void Put(json v) {
    json& top = *stack_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
    } else {
      top[key_] = std::move(v);
    }
  }

  [[noreturn]] void TopLevelError() const {
    throw core::FileError(source_, 0,
                          layout_ == Layout::kObjectOfArrays
                              ? "the top level is not a JSON object (a COCO annotations file is "
                                "{\"images\": [...], ...})"
                              : "the top level is not a JSON list (a COCO results file is "
                                "[{\"image_id\": ...}, ...])");
  }
  [[noreturn]] void TooDeep() const {
    std::string where;
    if (capturing_) {
      where = layout_ == Layout::kArray ? "detection " + std::to_string(index_) + ": "
                                        : section_ + "[" + std::to_string(index_) + "]: ";
    }
    throw core::OffsetError(
        source_, offset_(),
        where + "JSON nesting deeper than " + std::to_string(core::kMaxJsonDepth) + " levels");
  }
  [[noreturn]] void NotAList() const {
    throw core::FileError(source_, 0, "\"" + section_ + "\" is not a JSON list");
  }

  Layout layout_;
  std::vector<std::string> sections_;
  Callback cb_;
  std::string source_;
  std::function<long long()> offset_;
  int depth_ = 0;
  bool seen_top_ = false;
  std::string section_;
  bool wanted_ = false;
  bool in_array_ = false;
  size_t index_ = 0;
  bool capturing_ = false;
  json element_;
  std::vector<json*> stack_;
  std::string key_;
};

// Runs a SAX consumer made by make_sax(offset) over a file or a string; offset() is the byte
// offset of the last character the parser read.
void RunSax(const std::function<std::unique_ptr<ElementSax>(std::function<long long()>)>& make_sax,
            const std::string* text, const std::string& path) {
  std::unique_ptr<ElementSax> sax;
  if (text != nullptr) {
    // A string has no read position to ask; the nesting error is rare, so find the bracket
    // again then (core::JsonNestingDepth stops at the first one past the limit).
    sax = make_sax([text]() -> long long {
      size_t at = 0;
      core::JsonNestingDepth(*text, core::kMaxJsonDepth, &at);
      return static_cast<long long>(at);
    });
    json::sax_parse(*text, sax.get());
  } else {
    // Only regular files: a FIFO would block, /dev/zero or /dev/urandom never end.
    std::string why;
    core::UniqueFile f = core::OpenRegularFile(path, &why);
    if (!f) throw core::FileError(path, 0, "cannot open: " + why);
    std::FILE* fp = f.get();
    // nlohmann reads a FILE* with fgetc and no read-ahead past a bracket.
    sax = make_sax([fp]() -> long long { return static_cast<long long>(std::ftell(fp)) - 1; });
    json::sax_parse(fp, sax.get());
    if (std::ferror(fp)) throw core::FileError(path, 0, "read error");
  }
  if (!sax->complete()) throw core::FileError(path, 0, "empty or incomplete JSON document");
}

// ---- Field access with errors naming the element.

[[noreturn]] void Fail(const std::string& source, const std::string& where,
                       const std::string& what) {
  throw core::FileError(source, 0, where + ": " + what);
}

bool ToInt(const json& v, int64_t* out) {
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
      return false;
    *out = v.get<int64_t>();
    return true;
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) {
      *out = static_cast<int64_t>(d);
      return true;
    }
  }
  return false;
}

int64_t GetInt(const json& o, const char* key, const std::string& source,
               const std::string& where) {
  auto it = o.find(key);
  if (it == o.end()) Fail(source, where, std::string("missing \"") + key + "\"");
  int64_t v = 0;
  if (!ToInt(*it, &v)) {
    Fail(source, where, std::string("\"") + key + "\" is not an integer: " + Excerpt(*it));
  }
  return v;
}

double GetNumber(const json& v, const std::string& what, const std::string& source,
                 const std::string& where) {
  if (!v.is_number()) Fail(source, where, what + " is not a number: " + Excerpt(v));
  return v.get<double>();
}

Box GetBox(const json& v, const std::string& source, const std::string& where) {
  if (!v.is_array() || v.size() != 4) {
    Fail(source, where, "\"bbox\" is not a list of 4 numbers: " + Excerpt(v));
  }
  Box b{};
  for (size_t i = 0; i < 4; ++i) b[i] = GetNumber(v[i], "\"bbox\" element", source, where);
  return b;
}

// An RLE object {"size": [h, w], "counts": [...] or "..."}.
Rle GetRle(const json& v, bool* compressed, const std::string& source, const std::string& where) {
  auto size = v.find("size");
  auto counts = v.find("counts");
  if (size == v.end() || counts == v.end())
    Fail(source, where, "an RLE segmentation needs \"size\" and \"counts\"");
  int64_t h = 0, w = 0;
  if (!size->is_array() || size->size() != 2 || !ToInt((*size)[0], &h) || !ToInt((*size)[1], &w) ||
      h < 0 || w < 0) {
    Fail(source, where, "RLE \"size\" is not [height, width]: " + Excerpt(*size));
  }
  Rle r;
  r.h = h;
  r.w = w;
  if (counts->is_string()) {
    *compressed = true;
    if (!RleFrString(counts->get_ref<const std::string&>(), h, w, &r)) {
      Fail(source, where, "RLE \"counts\" is not a valid compressed RLE string");
    }
  } else if (counts->is_array()) {
    *compressed = false;
    r.counts.reserve(counts->size());
    for (const json& c : *counts) {
      int64_t n = 0;
      if (!ToInt(c, &n) || n < 0 || n > static_cast<int64_t>(UINT32_MAX)) {
        Fail(source, where, "RLE \"counts\" holds a value that is not a run length: " + Excerpt(c));
      }
      r.counts.push_back(static_cast<uint32_t>(n));
    }
  } else {
    Fail(source, where, "RLE \"counts\" is neither a list nor a string");
  }
  return r;
}

std::string AnnWhere(const json& e, size_t index) {
  int64_t id = 0;
  auto it = e.find("id");
  if (it != e.end() && ToInt(*it, &id)) return "annotation id " + std::to_string(id);
  return "annotations[" + std::to_string(index) + "]";
}

CocoImage ImageFromJson(const json& e, size_t index, const std::string& source) {
  std::string where = "images[" + std::to_string(index) + "]";
  if (!e.is_object()) Fail(source, where, "not a JSON object");
  CocoImage im;
  im.id = GetInt(e, "id", source, where);
  where = "image id " + std::to_string(im.id);
  auto fn = e.find("file_name");
  if (fn != e.end()) {
    if (!fn->is_string()) Fail(source, where, "\"file_name\" is not a string");
    im.file_name = fn->get<std::string>();
  }
  im.width = GetInt(e, "width", source, where);
  im.height = GetInt(e, "height", source, where);
  return im;
}

CocoCategory CategoryFromJson(const json& e, size_t index, const std::string& source) {
  std::string where = "categories[" + std::to_string(index) + "]";
  if (!e.is_object()) Fail(source, where, "not a JSON object");
  CocoCategory c;
  c.id = GetInt(e, "id", source, where);
  where = "category id " + std::to_string(c.id);
  auto name = e.find("name");
  if (name != e.end()) {
    if (!name->is_string()) Fail(source, where, "\"name\" is not a string");
    c.name = name->get<std::string>();
  }
  auto sup = e.find("supercategory");
  if (sup != e.end() && sup->is_string()) c.supercategory = sup->get<std::string>();
  return c;
}

CocoAnnotation AnnotationFromJson(const json& e, size_t index, const std::string& source) {
  if (!e.is_object())
    Fail(source, "annotations[" + std::to_string(index) + "]", "not a JSON object");
  const std::string where = AnnWhere(e, index);
  CocoAnnotation a;
  a.id = GetInt(e, "id", source, where);
  a.image_id = GetInt(e, "image_id", source, where);
  a.category_id = GetInt(e, "category_id", source, where);
  auto bbox = e.find("bbox");
  if (bbox == e.end()) Fail(source, where, "missing \"bbox\"");
  a.bbox = GetBox(*bbox, source, where);
  auto area = e.find("area");
  if (area == e.end()) Fail(source, where, "missing \"area\"");
  a.area = GetNumber(*area, "\"area\"", source, where);
  auto crowd = e.find("iscrowd");
  if (crowd != e.end()) {
    int64_t c = 0;
    if (crowd->is_boolean()) {
      c = crowd->get<bool>() ? 1 : 0;
    } else if (!ToInt(*crowd, &c) || (c != 0 && c != 1)) {
      Fail(source, where, "\"iscrowd\" is not 0 or 1: " + Excerpt(*crowd));
    }
    a.iscrowd = c != 0;
  }
  auto seg = e.find("segmentation");
  if (seg != e.end() && !seg->is_null()) {
    if (seg->is_array()) {
      for (size_t p = 0; p < seg->size(); ++p) {
        const json& poly = (*seg)[p];
        if (!poly.is_array())
          Fail(source, where,
               "segmentation polygon " + std::to_string(p) + " is not a list of numbers");
        std::vector<double> xy;
        xy.reserve(poly.size());
        for (const json& c : poly)
          xy.push_back(GetNumber(c, "a polygon coordinate", source, where));
        a.segmentation.polygons.push_back(std::move(xy));
      }
    } else if (seg->is_object()) {
      a.segmentation.rle = GetRle(*seg, &a.segmentation.rle_compressed, source, where);
    } else {
      Fail(source, where, "\"segmentation\" is neither a polygon list nor an RLE object");
    }
  }
  return a;
}

std::string Num(double v) { return json(v).dump(); }

std::string BoxText(const Box& b) {
  return "[" + Num(b[0]) + ", " + Num(b[1]) + ", " + Num(b[2]) + ", " + Num(b[3]) + "]";
}

// Checks an RLE against its image's size.
void CheckRle(const Rle& r, const CocoImage& im, const std::string& source,
              const std::string& where) {
  if (r.h != im.height || r.w != im.width) {
    Fail(source, where,
         "RLE size [" + std::to_string(r.h) + ", " + std::to_string(r.w) +
             "] is not the image's [height, width] [" + std::to_string(im.height) + ", " +
             std::to_string(im.width) + "]");
  }
  const uint64_t sum = RleCountSum(r);
  if (sum != static_cast<uint64_t>(r.h * r.w)) {
    Fail(source, where,
         "RLE counts sum to " + std::to_string(sum) +
             ", not height * width = " + std::to_string(r.h * r.w));
  }
}

json RleToJson(const Rle& r, bool compressed) {
  json j = json::object();
  j["size"] = {r.h, r.w};
  if (compressed) {
    j["counts"] = RleToString(r);
  } else {
    j["counts"] = r.counts;
  }
  return j;
}

}  // namespace

int64_t CocoDataset::ImageIndex(int64_t image_id) const {
  auto it = image_index_.find(image_id);
  return it == image_index_.end() ? -1 : it->second;
}

int64_t CocoDataset::CategoryIndex(int64_t category_id) const {
  auto it = category_index_.find(category_id);
  return it == category_index_.end() ? -1 : it->second;
}

void CocoDataset::BuildIndex() {
  image_index_.clear();
  category_index_.clear();
  for (size_t i = 0; i < images.size(); ++i)
    image_index_.emplace(images[i].id, static_cast<int64_t>(i));
  for (size_t i = 0; i < categories.size(); ++i)
    category_index_.emplace(categories[i].id, static_cast<int64_t>(i));
}

void ValidateCocoDataset(CocoDataset* ds, const std::string& source) {
  {
    std::unordered_set<int64_t> seen;
    for (const CocoImage& im : ds->images) {
      const std::string where = "image id " + std::to_string(im.id);
      if (!seen.insert(im.id).second) Fail(source, where, "duplicate image id");
      if (im.width <= 0 || im.height <= 0) {
        Fail(source, where,
             "width and height must be positive, got " + std::to_string(im.width) + " x " +
                 std::to_string(im.height));
      }
      if (im.width > kMaxMaskSide || im.height > kMaxMaskSide) {
        Fail(source, where,
             "width and height must be at most " + std::to_string(kMaxMaskSide) + ", got " +
                 std::to_string(im.width) + " x " + std::to_string(im.height) +
                 " (COCO masks count pixels in 32 bits, as pycocotools: h * w must be below 2^32)");
      }
    }
  }
  {
    std::unordered_set<int64_t> seen;
    for (const CocoCategory& c : ds->categories) {
      if (!seen.insert(c.id).second)
        Fail(source, "category id " + std::to_string(c.id), "duplicate category id");
    }
  }
  ds->BuildIndex();
  std::unordered_set<int64_t> seen;
  seen.reserve(ds->annotations.size());
  for (const CocoAnnotation& a : ds->annotations) {
    const std::string where = "annotation id " + std::to_string(a.id);
    if (!seen.insert(a.id).second) Fail(source, where, "duplicate annotation id");
    const int64_t ii = ds->ImageIndex(a.image_id);
    if (ii < 0)
      Fail(source, where, "image id " + std::to_string(a.image_id) + " is not in \"images\"");
    const CocoImage& im = ds->images[static_cast<size_t>(ii)];
    const std::string at = where + " (image id " + std::to_string(a.image_id) + ")";
    if (ds->CategoryIndex(a.category_id) < 0) {
      Fail(source, at,
           "category id " + std::to_string(a.category_id) + " is not in \"categories\"");
    }
    const Box& b = a.bbox;
    for (double v : b) {
      if (!std::isfinite(v)) Fail(source, at, "bbox " + BoxText(b) + " is not finite");
    }
    if (b[2] < 0 || b[3] < 0)
      Fail(source, at, "bbox " + BoxText(b) + " has a negative width or height");
    const double t = kBboxTolerance;
    if (b[0] < -t || b[1] < -t || b[0] + b[2] > static_cast<double>(im.width) + t ||
        b[1] + b[3] > static_cast<double>(im.height) + t) {
      Fail(source, at,
           "bbox " + BoxText(b) + " lies outside its " + std::to_string(im.width) + " x " +
               std::to_string(im.height) + " image (by more than " + Num(t) + " px)");
    }
    if (!std::isfinite(a.area) || a.area < 0)
      Fail(source, at, "\"area\" " + Num(a.area) + " is not a non-negative number");
    const Segmentation& s = a.segmentation;
    for (size_t p = 0; p < s.polygons.size(); ++p) {
      const auto& xy = s.polygons[p];
      const std::string poly = "segmentation polygon " + std::to_string(p);
      if (xy.size() % 2 != 0) {
        Fail(source, at,
             poly + " has an odd number of coordinates (" + std::to_string(xy.size()) + ")");
      }
      if (xy.size() < 6) {
        Fail(source, at, poly + " has " + std::to_string(xy.size() / 2) + " points, fewer than 3");
      }
      for (double v : xy) {
        if (!std::isfinite(v)) Fail(source, at, poly + " has a coordinate that is not finite");
      }
      // Before anything is rasterised: rleFrPoly allocates two ints per point of the outline.
      const uint64_t walk = RlePolyWalkLength(xy);
      if (walk == UINT64_MAX) {
        Fail(source, at,
             poly + " has a coordinate beyond +-4.29e8, where 5 x it overflows cocoapi's int");
      }
      if (walk > kMaxPolyWalk) {
        Fail(source, at,
             poly + " is too large to rasterise: its outline is " + std::to_string(walk) +
                 " points at rleFrPoly's 5x resolution, more than " + std::to_string(kMaxPolyWalk) +
                 " (" + std::to_string(xy.size() / 2) + " vertices)");
      }
    }
    if (s.rle) CheckRle(*s.rle, im, source, at + ": segmentation");
  }
}

static CocoDataset ParseCocoDatasetImpl(const std::string* text, const std::string& source) {
  CocoDataset ds;
  const auto on_element = [&](const std::string& section, size_t index, json& e) {
    if (section == "images") {
      ds.images.push_back(ImageFromJson(e, index, source));
    } else if (section == "annotations") {
      ds.annotations.push_back(AnnotationFromJson(e, index, source));
    } else {
      ds.categories.push_back(CategoryFromJson(e, index, source));
    }
  };
  RunSax(
      [&](std::function<long long()> offset) {
        return std::make_unique<ElementSax>(
            ElementSax::Layout::kObjectOfArrays,
            std::vector<std::string>{"images", "annotations", "categories"}, on_element, source,
            std::move(offset));
      },
      text, source);
  ValidateCocoDataset(&ds, source);
  return ds;
}

CocoDataset ReadCocoDataset(const std::string& path) { return ParseCocoDatasetImpl(nullptr, path); }

CocoDataset ParseCocoDataset(const std::string& json_text, const std::string& source) {
  return ParseCocoDatasetImpl(&json_text, source);
}

std::string CocoDatasetToJson(const CocoDataset& ds) {
  core::Json j;
  core::Json images = core::Json::array();
  for (const CocoImage& im : ds.images) {
    images.push_back(
        {{"id", im.id}, {"file_name", im.file_name}, {"width", im.width}, {"height", im.height}});
  }
  core::Json anns = core::Json::array();
  for (const CocoAnnotation& a : ds.annotations) {
    core::Json o;
    o["id"] = a.id;
    o["image_id"] = a.image_id;
    o["category_id"] = a.category_id;
    o["bbox"] = {a.bbox[0], a.bbox[1], a.bbox[2], a.bbox[3]};
    o["area"] = a.area;
    o["iscrowd"] = a.iscrowd ? 1 : 0;
    if (a.segmentation.rle) {
      const json r = RleToJson(*a.segmentation.rle, a.segmentation.rle_compressed);
      o["segmentation"] = {{"size", r["size"]}, {"counts", r["counts"]}};
    } else {
      core::Json polys = core::Json::array();
      for (const auto& p : a.segmentation.polygons) polys.push_back(p);
      o["segmentation"] = std::move(polys);
    }
    anns.push_back(std::move(o));
  }
  core::Json cats = core::Json::array();
  for (const CocoCategory& c : ds.categories) {
    cats.push_back({{"id", c.id}, {"name", c.name}, {"supercategory", c.supercategory}});
  }
  j["images"] = std::move(images);
  j["annotations"] = std::move(anns);
  j["categories"] = std::move(cats);
  return j.dump() + "\n";
}

void WriteCocoDataset(const std::string& path, CocoDataset ds) {
  ValidateCocoDataset(&ds, path);
  core::WriteFileAtomically(path, CocoDatasetToJson(ds));
}

// ---- Results.

namespace {

Detection DetectionFromJson(const json& e, size_t index, const std::string& source) {
  const std::string where = "detection " + std::to_string(index);
  if (!e.is_object()) Fail(source, where, "not a JSON object");
  Detection d;
  d.image_id = GetInt(e, "image_id", source, where);
  d.category_id = GetInt(e, "category_id", source, where);
  auto score = e.find("score");
  if (score == e.end()) Fail(source, where, "missing \"score\"");
  d.score = GetNumber(*score, "\"score\"", source, where);
  auto bbox = e.find("bbox");
  d.has_bbox = bbox != e.end() && !(bbox->is_array() && bbox->empty());
  if (d.has_bbox) d.bbox = GetBox(*bbox, source, where);
  auto seg = e.find("segmentation");
  if (seg != e.end() && !seg->is_null()) {
    if (!seg->is_object()) {
      Fail(source, where,
           "\"segmentation\" of a result must be an RLE object {\"size\", \"counts\"} (as "
           "pycocotools' loadRes)");
    }
    bool compressed = true;
    d.segmentation = GetRle(*seg, &compressed, source, where);
  }
  return d;
}

std::vector<Detection> ParseResultsImpl(const std::string* text, const std::string& source,
                                        const CocoDataset& gt, std::vector<std::string>* warnings) {
  std::vector<Detection> dets;
  const auto on_element = [&](const std::string&, size_t index, json& e) {
    dets.push_back(DetectionFromJson(e, index, source));
  };
  RunSax(
      [&](std::function<long long()> offset) {
        return std::make_unique<ElementSax>(ElementSax::Layout::kArray, std::vector<std::string>{},
                                            on_element, source, std::move(offset));
      },
      text, source);
  ValidateDetections(dets, gt, source, warnings);
  return dets;
}

}  // namespace

// Why a detection's box, valid for pycocotools, is likely a mistake (a [x1, y1, x2, y2] box, a
// wrong image), or "" when it is not.
std::string BoxWarning(const Box& b, const CocoImage& im) {
  if (b[2] < 0 || b[3] < 0) return "has a negative width or height";
  const double w = static_cast<double>(im.width), h = static_cast<double>(im.height);
  const double x2 = b[0] + b[2], y2 = b[1] + b[3];
  // Entirely outside, or reaching further past a border than the image is wide (high).
  if (b[0] >= w || b[1] >= h || x2 <= 0 || y2 <= 0 || b[0] < -w || b[1] < -h || x2 > 2 * w ||
      y2 > 2 * h) {
    return "lies far outside its " + std::to_string(im.width) + " x " + std::to_string(im.height) +
           " image";
  }
  return "";
}

void ValidateDetections(const std::vector<Detection>& dets, const CocoDataset& gt,
                        const std::string& source, std::vector<std::string>* warnings) {
  for (size_t i = 0; i < dets.size(); ++i) {
    const Detection& d = dets[i];
    const std::string where = "detection " + std::to_string(i);
    const int64_t ii = gt.ImageIndex(d.image_id);
    if (ii < 0)
      Fail(source, where,
           "image id " + std::to_string(d.image_id) + " is not an image of the ground truth");
    if (gt.CategoryIndex(d.category_id) < 0) {
      Fail(source, where,
           "category id " + std::to_string(d.category_id) +
               " is not a category of the ground truth");
    }
    if (!std::isfinite(d.score)) Fail(source, where, "\"score\" is not finite");
    if (!d.has_bbox && !d.segmentation)
      Fail(source, where, "has neither \"bbox\" nor \"segmentation\"");
    if (d.has_bbox) {
      for (double v : d.bbox) {
        if (!std::isfinite(v)) Fail(source, where, "bbox " + BoxText(d.bbox) + " is not finite");
      }
      if (warnings != nullptr) {
        const std::string why = BoxWarning(d.bbox, gt.images[static_cast<size_t>(ii)]);
        if (!why.empty()) {
          warnings->push_back(source + ": " + where + " (image id " + std::to_string(d.image_id) +
                              "): bbox " + BoxText(d.bbox) + " " + why +
                              "; scored as given, as pycocotools does");
        }
      }
    }
    if (d.segmentation) {
      CheckRle(*d.segmentation, gt.images[static_cast<size_t>(ii)], source,
               where + " (image id " + std::to_string(d.image_id) + "): segmentation");
    }
  }
}

std::vector<Detection> ReadCocoResults(const std::string& path, const CocoDataset& gt,
                                       std::vector<std::string>* warnings) {
  return ParseResultsImpl(nullptr, path, gt, warnings);
}

std::vector<Detection> ParseCocoResults(const std::string& json_text, const std::string& source,
                                        const CocoDataset& gt, std::vector<std::string>* warnings) {
  return ParseResultsImpl(&json_text, source, gt, warnings);
}

std::string CocoResultsToJson(const std::vector<Detection>& dets) {
  core::Json list = core::Json::array();
  for (const Detection& d : dets) {
    core::Json o;
    o["image_id"] = d.image_id;
    o["category_id"] = d.category_id;
    if (d.has_bbox) o["bbox"] = {d.bbox[0], d.bbox[1], d.bbox[2], d.bbox[3]};
    if (d.segmentation) {
      o["segmentation"] = {{"size", {d.segmentation->h, d.segmentation->w}},
                           {"counts", RleToString(*d.segmentation)}};
    }
    o["score"] = d.score;
    list.push_back(std::move(o));
  }
  return list.dump() + "\n";
}

void WriteCocoResults(const std::string& path, const std::vector<Detection>& dets) {
  core::WriteFileAtomically(path, CocoResultsToJson(dets));
}

}  // namespace trainbench::coco
