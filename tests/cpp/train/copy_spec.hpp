// The training copy a test names: a scaling, with an optional QK-norm, soft-cap and length factor.
#pragma once

#include <string>
#include <utility>

#include "train/train.hpp"

inline attnscale::CopySpec spec(std::string name, attnscale::ScaleMode mode,
                                attnscale::QkNorm norm = attnscale::QkNorm::none,
                                double softcap = 0.0, double lengthScale = 0.0) {
  attnscale::CopySpec c;
  c.name = std::move(name);
  c.scaleMode = mode;
  c.qkNorm = norm;
  c.softcap = softcap;
  c.lengthScale = lengthScale;
  return c;
}
