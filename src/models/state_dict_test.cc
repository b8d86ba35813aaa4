#include "models/state_dict.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/sha256.h"
#include "models/resnet.h"
#include "models/ssd.h"

namespace trainbench::models {
namespace {

namespace fs = std::filesystem;

std::string TempPath(const std::string& name) {
  const std::string d = std::string(TRAINBENCH_TEST_BINDIR) + "/state_dict_test_tmp";
  fs::create_directories(d);
  const std::string p = d + "/" + name;
  fs::remove(p);
  return p;
}

ResNetOptions Small(bool classifier, std::vector<int64_t> widths = {4, 8, 16, 32}) {
  return ResNetOptions()
      .bottleneck(false)
      .imagenet_stem(false)
      .blocks(std::vector<int64_t>(widths.size(), 1))
      .widths(widths)
      .num_classes(5)
      .classifier(classifier);
}

// Fills every parameter and buffer with values that no initialisation produces.
void Scramble(torch::nn::Module& m, double offset) {
  torch::NoGradGuard g;
  int64_t i = 0;
  for (auto& p : m.named_parameters())
    p.value().copy_(torch::arange(p.value().numel()).reshape(p.value().sizes()) * 0.01 + offset +
                    i++);
  for (auto& b : m.named_buffers()) b.value().fill_(static_cast<double>(i++) + offset);
}

void ExpectSameTensors(torch::nn::Module& a, torch::nn::Module& b) {
  auto pa = a.named_parameters(), pb = b.named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (const auto& p : pa) EXPECT_TRUE(torch::equal(p.value(), pb[p.key()])) << p.key();
  auto ba = a.named_buffers(), bb = b.named_buffers();
  ASSERT_EQ(ba.size(), bb.size());
  for (const auto& x : ba) EXPECT_TRUE(torch::equal(x.value(), bb[x.key()])) << x.key();
}

// Writes any IValue as torch.save would (the file LoadStateDict then reads).
void WritePickle(const std::string& path, const torch::IValue& value) {
  const std::vector<char> bytes = torch::pickle_save(value);
  core::WriteFileAtomically(path, std::string(bytes.begin(), bytes.end()));
}

std::string ErrorOf(torch::nn::Module& m, const std::string& path) {
  try {
    LoadStateDict(m, path);
  } catch (const core::Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(StateDict, RoundTripCopiesEveryParameterAndBuffer) {
  ResNet a(Small(true)), b(Small(true));
  Scramble(*a, 0.5);
  const std::string path = TempPath("round_trip.pt");
  SaveStateDict(*a, path);
  const StateDictLoadReport r = LoadStateDict(*b, path);
  ExpectSameTensors(*a, *b);
  EXPECT_EQ(r.loaded,
            static_cast<int64_t>(a->named_parameters().size() + a->named_buffers().size()));
  EXPECT_TRUE(r.unused.empty());
  EXPECT_TRUE(r.missing.empty());
  EXPECT_EQ(r.sha256, core::Sha256Hex(core::ReadFile(path)));
  EXPECT_EQ(r.path, path);
}

// The SSD reference's trunk: torchvision's ResNet-34 (a classifier with layer4 and fc) loads into
// SSD300's trunk (stem, layer1..3 with layer3's stride 1): every trunk tensor comes from the file,
// the rest of the file is reported unused.
TEST(StateDict, AResNet34ClassifierLoadsIntoTheSsd300Trunk) {
  ResNet r34(ResNetOptions()
                 .bottleneck(false)
                 .blocks({3, 4, 6, 3})
                 .widths({64, 128, 256, 512})
                 .num_classes(1000));
  int64_t params = 0;
  for (const auto& p : r34->parameters()) params += p.numel();
  ASSERT_EQ(params, 21797672);  // torchvision.models.resnet34()
  Scramble(*r34, 0.25);
  const std::string path = TempPath("resnet34.pt");
  SaveStateDict(*r34, path);

  Ssd ssd(Ssd300Options(81));
  const StateDictLoadReport r = LoadStateDict(*ssd->trunk, path);
  EXPECT_EQ(r.loaded, static_cast<int64_t>(ssd->trunk->named_parameters().size() +
                                           ssd->trunk->named_buffers().size()));
  auto src = r34->named_parameters();
  for (const auto& p : ssd->trunk->named_parameters())
    EXPECT_TRUE(torch::equal(p.value(), src[p.key()])) << p.key();
  const auto has = [&](const std::string& k) {
    return std::find(r.unused.begin(), r.unused.end(), k) != r.unused.end();
  };
  EXPECT_TRUE(has("fc.weight"));
  EXPECT_TRUE(has("fc.bias"));
  EXPECT_TRUE(has("layer4.0.conv1.weight"));
  EXPECT_TRUE(has("layer4.2.bn2.running_var"));
  EXPECT_FALSE(has("layer3.5.bn2.weight"));
  for (const auto& k : r.unused)
    EXPECT_TRUE(k.rfind("fc.", 0) == 0 || k.rfind("layer4.", 0) == 0) << k;
}

// torchvision's ResNet checkpoints predate num_batches_tracked: the buffers stay as they were.
TEST(StateDict, NumBatchesTrackedMayBeAbsentAndOtherTypesConvert) {
  ResNet a(Small(true)), b(Small(true));
  Scramble(*a, 1.5);
  c10::Dict<std::string, torch::Tensor> d;
  for (const auto& p : a->named_parameters())
    d.insert(p.key(), p.value().detach().to(torch::kFloat64));
  int64_t tracked = 0;
  for (const auto& x : a->named_buffers()) {
    if (x.key().find("num_batches_tracked") != std::string::npos) {
      ++tracked;
      continue;
    }
    d.insert(x.key(), x.value().detach().clone());
  }
  ASSERT_GT(tracked, 0);
  const std::string path = TempPath("no_tracked.pt");
  WritePickle(path, torch::IValue(d));
  const StateDictLoadReport r = LoadStateDict(*b, path);
  EXPECT_EQ(static_cast<int64_t>(r.missing.size()), tracked);
  auto pa = a->named_parameters();
  for (const auto& p : b->named_parameters()) {
    EXPECT_EQ(p.value().scalar_type(), torch::kFloat32);
    EXPECT_TRUE(torch::allclose(p.value(), pa[p.key()])) << p.key();
  }
}

TEST(StateDict, AMissingTensorIsNamedWithTheFile) {
  ResNet trunk(Small(false)), classifier(Small(true));
  const std::string path = TempPath("trunk_only.pt");
  SaveStateDict(*trunk, path);
  const std::string e = ErrorOf(*classifier, path);
  EXPECT_NE(e.find(path), std::string::npos) << e;
  EXPECT_NE(e.find("no tensor \"fc."), std::string::npos) << e;
}

TEST(StateDict, AShapeMismatchNamesTheKeyAndBothShapes) {
  ResNet wide(Small(true, {8, 16, 32, 64})), narrow(Small(true));
  const std::string path = TempPath("wide.pt");
  SaveStateDict(*wide, path);
  const std::string e = ErrorOf(*narrow, path);
  EXPECT_NE(
      e.find(path +
             ": key \"conv1.weight\": shape [8, 3, 3, 3] in the file, [4, 3, 3, 3] in the model"),
      std::string::npos)
      << e;
}

TEST(StateDict, FilesThatAreNotADictOfTensorsAreRefused) {
  ResNet m(Small(true));
  const std::string legacy = TempPath("legacy.pth");
  core::WriteFileAtomically(legacy, std::string("\x80\x02\x8a\x0a"
                                                "legacy pickle bytes"));
  std::string e = ErrorOf(*m, legacy);
  EXPECT_NE(e.find(legacy + ": not a zip-format torch.save file (it looks like the legacy format"),
            std::string::npos)
      << e;

  const std::string list = TempPath("list.pt");
  WritePickle(list, torch::IValue(c10::List<int64_t>({1, 2, 3})));
  e = ErrorOf(*m, list);
  EXPECT_NE(e.find(list + ": holds a "), std::string::npos) << e;
  EXPECT_NE(e.find("not a dict from names to tensors"), std::string::npos) << e;

  const std::string ints = TempPath("ints.pt");
  c10::Dict<std::string, int64_t> d;
  d.insert("conv1.weight", 3);
  WritePickle(ints, torch::IValue(d));
  e = ErrorOf(*m, ints);
  EXPECT_NE(e.find(ints + ": key \"conv1.weight\": a Int, not a tensor"), std::string::npos) << e;

  const std::string broken = TempPath("broken.pt");
  core::WriteFileAtomically(broken, std::string("PK\x03\x04"
                                                " not really a zip archive"));
  e = ErrorOf(*m, broken);
  EXPECT_NE(e.find(broken + ": cannot be read as a dict saved by torch.save ("), std::string::npos)
      << e;

  const std::string missing = TempPath("does_not_exist.pt");
  e = ErrorOf(*m, missing);
  EXPECT_NE(e.find(missing), std::string::npos) << e;
}

}  // namespace
}  // namespace trainbench::models
