// The schema's lists come from one table each: every scaling, format, softmax and QK-norm is a
// choice of its field, with what the page shows of it, and reads back through parse_config and
// config_to_json; a scaling's published exponent is the multiplier the engine uses.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "config/config.hpp"
#include "field_values.hpp"

namespace attnscale {
namespace {

const FieldSpec& field(const char* name) {
  for (const FieldSpec& f : config_schema())
    if (std::string(f.name) == name) return f;
  ADD_FAILURE() << "no field " << name;
  return *config_schema().begin();
}

template <class Table>
void expect_choices(const char* name, const Table& table) {
  const FieldSpec& f = field(name);
  ASSERT_NE(f.choices, nullptr) << name;
  const Choices& choices = f.choices();
  ASSERT_EQ(choices.size(), std::size(table)) << name;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    EXPECT_EQ(choices[i].value, table[i].key) << name;
    EXPECT_EQ(choices[i].label, table[i].label) << name;
    Config c;
    ASSERT_TRUE(parse_config({{name, text_field(table[i].key)}}, c).ok()) << table[i].key;
    EXPECT_NE(config_to_json(c).find("\"" + std::string(name) + "\":\"" + table[i].key + "\""),
              std::string::npos)
        << table[i].key;
    EXPECT_TRUE(validate_config(c).ok()) << table[i].key;
  }
}

TEST(SchemaTables, EveryListIsItsFieldsChoices) {
  expect_choices("precision", kFormats);
  expect_choices("scale", kScalings);
  expect_choices("softmax", kSoftmaxModes);
  expect_choices("qkNorm", kQkNorms);
  for (const FieldSpec& f : config_schema())
    EXPECT_EQ(f.choices != nullptr, f.type == FieldType::enumeration || f.type == FieldType::scale)
        << f.name;
}

TEST(SchemaTables, ScalingsExponentIsTheirFactor) {
  for (const Scaling& s : kScalings)
    for (int dk : {1, 2, 3, 7, 64, 100, 1000, 4096}) {
      const float want = static_cast<float>(std::pow(static_cast<double>(dk), s.exponent));
      EXPECT_EQ(s.factor(dk), want) << s.key << " at d_k " << dk;
      EXPECT_EQ(scale_factor(s.mode, 0.0, dk), s.factor(dk));
      EXPECT_EQ(find_scaling(s.key), &s);
      EXPECT_EQ(scaling_of(s.mode), &s);
    }
  EXPECT_EQ(scaling_of(ScaleMode::custom), nullptr);
  EXPECT_EQ(scale_factor(ScaleMode::custom, 0.3, 64), 0.3f);
}

TEST(SchemaTables, JsonListsChoicesWithTheirMetadata) {
  const std::string json = config_schema_json();
  EXPECT_NE(json.find("\"values\":[\"none\",\"sqrt\",\"linear\"],\"choices\":[{\"value\":\"none\","
                      "\"label\":\"none\",\"formula\":\"1\",\"tex\":\"1\",\"exponent\":0},"),
            std::string::npos);
  EXPECT_NE(json.find("{\"value\":\"fp8e4m3\",\"label\":\"fp8 E4M3\",\"exponentBits\":4,"
                      "\"mantissaBits\":3,\"largestFinite\":448,\"hasInfinity\":false,"
                      "\"canSaturate\":true}"),
            std::string::npos);
  EXPECT_NE(json.find("\"hint\":\"Multiplier on QKᵀ: none (×1), sqrt (×1/√d_k), linear (×1/d_k) "
                      "or a custom number.\""),
            std::string::npos);
  EXPECT_NE(json.find("\"name\":\"blockSize\",\"type\":\"int\",\"min\":1,\"max\":2048,"
                      "\"minExclusive\":false,\"maxField\":\"seqLen\""),
            std::string::npos);
}

TEST(SchemaTables, ConfigJsonLoopsOverTheSchema) {
  Config c;
  c.scaleMode = ScaleMode::custom;
  c.customScale = 0.05;
  c.seed = 4294967295u;
  EXPECT_EQ(config_to_json(c),
            "{\"dk\":64,\"seqLen\":256,\"precision\":\"fp32\",\"saturate\":false,\"scale\":0.05,"
            "\"subtractMax\":true,\"softmax\":\"naive\",\"blockSize\":64,\"causal\":false,"
            "\"mean\":0,\"std\":1,\"correlation\":0,\"seed\":4294967295,\"qkNorm\":\"none\","
            "\"lengthScale\":0,\"softcap\":0}");
  Config bad;
  bad.blockSize = 300;
  EXPECT_EQ(validate_config(bad).message, "blockSize must be an integer in [1, 256], got 300");
  bad = Config{};
  bad.std = 0;
  EXPECT_EQ(validate_config(bad).message, "std must be a finite number in (0, 1000000], got 0");
}

}  // namespace
}  // namespace attnscale
