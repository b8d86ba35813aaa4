// trainbench-text: the LibTorch-free part of the CLI that needs SentencePiece
// (`prepare translation`). A trainbench linked with LibTorch runs it as a child process: Debian's
// libsentencepiece embeds a protobuf that crashes next to LibTorch's libprotobuf in one process.
// Usage: trainbench-text prepare translation [--scale mini|full] [--data DIR] [--set key=value]...
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/commands.h"
#include "core/error.h"

int main(int argc, char** argv) {
  using namespace trainbench;
  CLI::App app{"trainbench-text: SentencePiece work of trainbench (prepare translation)"};
  app.require_subcommand(1);
  cli::PrepareOptions prep;
  auto* prep_cmd = app.add_subcommand("prepare", "Prepare (or verify) the translation dataset");
  prep_cmd->add_option("benchmark", prep.benchmark, "translation")->required();
  prep_cmd->add_option("--scale", prep.scale, "mini or full")->capture_default_str();
  prep_cmd->add_option("--data", prep.data_dir, "Dataset directory");
  prep_cmd->add_option("--set", prep.set, "Corpus option key=value (repeatable)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : cli::kExitBadInput;
  }
  try {
    if (prep.benchmark != "translation")
      throw core::Error("trainbench-text prepares only `translation`");
    return cli::RunPrepare(prep);
  } catch (const core::Error& e) {
    std::cerr << "trainbench: " << e.what() << "\n";
    return cli::kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "trainbench: error: " << e.what() << "\n";
    return cli::kExitFailure;
  }
}
