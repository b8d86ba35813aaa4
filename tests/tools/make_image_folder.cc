// Writes a small ImageNet-layout folder of JPEGs for tests:
//   make_image_folder OUT_DIR CLASSES TRAIN_PER_CLASS VAL_PER_CLASS [WIDTH HEIGHT]
// -> OUT_DIR/train/n0000000<c>/img_<i>.JPEG and OUT_DIR/val/... (deterministic content).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "data/image.h"
#include "data/jpeg_codec.h"

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s OUT_DIR CLASSES TRAIN_PER_CLASS VAL_PER_CLASS [WIDTH HEIGHT]\n",
                 argv[0]);
    return 2;
  }
  const std::string out = argv[1];
  const int classes = std::atoi(argv[2]), train = std::atoi(argv[3]), val = std::atoi(argv[4]);
  const int width = argc > 6 ? std::atoi(argv[5]) : 300,
            height = argc > 6 ? std::atoi(argv[6]) : 240;
  for (const char* split : {"train", "val"}) {
    const int n = std::string(split) == "train" ? train : val;
    for (int c = 0; c < classes; ++c) {
      char wnid[32];
      std::snprintf(wnid, sizeof(wnid), "n%08d", c);
      std::string dir = out + "/" + split + "/" + wnid;
      std::filesystem::create_directories(dir);
      for (int i = 0; i < n; ++i) {
        trainbench::data::Image img;
        img.height = height;
        img.width = width;
        img.channels = 3;
        img.data.resize(static_cast<size_t>(width) * height * 3);
        for (int y = 0; y < height; ++y) {
          for (int x = 0; x < width; ++x) {
            uint8_t* p = &img.data[(static_cast<size_t>(y) * width + x) * 3];
            p[0] = static_cast<uint8_t>((x * (c + 1) + i * 7) & 255);
            p[1] = static_cast<uint8_t>((y * (c + 2) + i * 13) & 255);
            p[2] = static_cast<uint8_t>(((x + y) * 3 + c * 50) & 255);
          }
        }
        trainbench::data::WriteJpegFile(dir + "/img_" + std::to_string(i) + ".JPEG", img, 85);
      }
    }
  }
  return 0;
}
