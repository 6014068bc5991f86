// Config values as they arrive from JS (config/config.hpp's FieldValue), for the parser's tests.
#pragma once

#include "config/config.hpp"

namespace attnscale {

inline FieldValue number_field(double v) {
  FieldValue f;
  f.kind = FieldValue::Kind::number;
  f.number = v;
  return f;
}

inline FieldValue text_field(const char* s) {
  FieldValue f;
  f.kind = FieldValue::Kind::string;
  f.text = s;
  return f;
}

}  // namespace attnscale
