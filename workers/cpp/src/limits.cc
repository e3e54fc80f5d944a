#include "limits.h"

#include <cmath>
#include <cstdlib>

namespace limits {

namespace {
constexpr double kIdleTimeoutS = 60.0;
}

int IdleTimeoutMs() {
  const char* text = std::getenv("RPCARENA_IDLE_TIMEOUT_S");
  double seconds = kIdleTimeoutS;
  if (text != nullptr && *text != '\0') {
    char* end = nullptr;
    double asked = std::strtod(text, &end);
    if (*end == '\0' && std::isfinite(asked) && asked > 0 && asked < kIdleTimeoutS) seconds = asked;
  }
  return static_cast<int>(seconds * 1000);
}

}  // namespace limits
