// Races on purpose: race-check.test expects ThreadSanitizer to report it.
#include <cstdio>
#include <thread>

int g_counter;

int main() {
  std::thread t([] { ++g_counter; });
  ++g_counter;
  t.join();
  std::printf("counter %d\n", g_counter);
  std::fflush(stdout);
  return 0;
}
