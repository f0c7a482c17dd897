// Races on purpose: race-check.test expects ThreadSanitizer to report it.
// Many unordered writes, not one: a single pair was missed once under load.
#include <cstdio>
#include <thread>

int g_counter;

int main() {
  std::thread t([] {
    for (int i = 0; i < 1000; ++i) ++g_counter;
  });
  for (int i = 0; i < 1000; ++i) ++g_counter;
  t.join();
  std::printf("counter %d\n", g_counter);
  std::fflush(stdout);
  return 0;
}
