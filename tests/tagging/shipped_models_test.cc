// ShippedModelPath: $CHAINTAG_MODELS first, then the caller's directories, and a NotFound that
// names every directory tried.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "chaintag/tagging.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace chaintag {
namespace {

using ::testing::HasSubstr;

class ShippedModelPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           (std::string("shipped_model_path_") +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_ / "a");
    std::filesystem::create_directories(dir_ / "b");
    std::ofstream(dir_ / "a" / "x.model") << "a";
    std::ofstream(dir_ / "b" / "x.model") << "b";
    unsetenv("CHAINTAG_MODELS");
  }
  void TearDown() override {
    unsetenv("CHAINTAG_MODELS");
    std::filesystem::remove_all(dir_);
  }
  std::filesystem::path dir_;
};

TEST_F(ShippedModelPathTest, DefaultPipelineIsPosThenChunk) {
  EXPECT_EQ(DefaultModelFiles(), (std::vector<std::string>{"en-pos.model", "en-chunk.model"}));
}

TEST_F(ShippedModelPathTest, AccuratePipelineIsPosNnThenChunkNnFoundLikeTheDefault) {
  EXPECT_EQ(AccurateModelFiles(),
            (std::vector<std::string>{"en-pos-nn.model", "en-chunk-nn.model"}));
  std::ofstream(dir_ / "a" / "en-pos-nn.model") << "n";
  std::ofstream(dir_ / "a" / "en-chunk-nn.model") << "c";
  setenv("CHAINTAG_MODELS", (dir_ / "a").c_str(), 1);
  auto paths = PipelineModelPaths({}, /*accurate=*/true);
  ASSERT_TRUE(paths.ok()) << paths.status();
  EXPECT_EQ(*paths, (std::vector<std::string>{(dir_ / "a" / "en-pos-nn.model").string(),
                                              (dir_ / "a" / "en-chunk-nn.model").string()}));
  // Given files win over either shipped pipeline.
  auto given = PipelineModelPaths({"x.model"}, /*accurate=*/true);
  ASSERT_TRUE(given.ok()) << given.status();
  EXPECT_EQ(*given, std::vector<std::string>{"x.model"});
}

TEST_F(ShippedModelPathTest, ExtraDirectoriesInOrder) {
  auto path = ShippedModelPath(
      "x.model", {(dir_ / "missing").string(), (dir_ / "b").string(), (dir_ / "a").string()});
  ASSERT_TRUE(path.ok()) << path.status();
  EXPECT_EQ(*path, (dir_ / "b" / "x.model").string());
}

TEST_F(ShippedModelPathTest, EnvironmentComesFirst) {
  setenv("CHAINTAG_MODELS", (dir_ / "a").c_str(), 1);
  auto path = ShippedModelPath("x.model", {(dir_ / "b").string()});
  ASSERT_TRUE(path.ok()) << path.status();
  EXPECT_EQ(*path, (dir_ / "a" / "x.model").string());
}

TEST_F(ShippedModelPathTest, NotFoundNamesTheDirectories) {
  auto path = ShippedModelPath("nothing.model", {(dir_ / "b").string()});
  ASSERT_FALSE(path.ok());
  EXPECT_EQ(path.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(path.status().message(), HasSubstr((dir_ / "b").string()));
  EXPECT_THAT(path.status().message(), HasSubstr("CHAINTAG_MODELS"));
}

}  // namespace
}  // namespace chaintag
