// Leaks on purpose: leak-check.test expects LeakSanitizer to report it.
#include <cstdio>
#include <cstdlib>

void* volatile g_sink;

int main() {
  g_sink = std::malloc(4096);
  g_sink = nullptr;  // the only pointer is gone
  std::puts("leaked 4096 bytes");
  std::fflush(stdout);  // before LeakSanitizer writes its report at exit
  return 0;
}
