// The runtime's thread pool: enc_parallel_for and enc_set_num_threads.
#include "enc/kernels/threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "enc/runtime.h"

namespace {

// Counts how often each index is visited.
struct Counter {
  explicit Counter(int64_t n) : hits(n) {}
  std::vector<std::atomic<int>> hits;
  std::atomic<int> calls{0};
};

void CountTask(void* ctx, int64_t begin, int64_t end) {
  auto* c = static_cast<Counter*>(ctx);
  c->calls.fetch_add(1);
  for (int64_t i = begin; i < end; ++i) c->hits[i].fetch_add(1);
}

void ExpectEachOnce(const Counter& c) {
  for (size_t i = 0; i < c.hits.size(); ++i) {
    ASSERT_EQ(c.hits[i].load(), 1) << "index " << i;
  }
}

class ThreadsTest : public ::testing::Test {
 protected:
  void SetUp() override { saved_ = enc_threads_count(); }
  void TearDown() override { enc_set_num_threads(saved_); }
  int saved_ = 1;
};

TEST_F(ThreadsTest, CoversEveryIndexOnce) {
  for (int threads : {1, 2, 3, 8}) {
    ASSERT_EQ(enc_set_num_threads(threads), threads);
    for (int64_t n : {1, 2, 3, 7, 100, 4097, 100000}) {
      for (int64_t grain : {0, 1, 7, 1000}) {
        Counter c(n);
        enc_parallel_for(n, grain, CountTask, &c);
        ExpectEachOnce(c);
        const int64_t g = grain < 1 ? 1 : grain;
        EXPECT_LE(c.calls.load(), 4 * threads);
        EXPECT_LE(c.calls.load(), (n + g - 1) / g);
      }
    }
  }
}

TEST_F(ThreadsTest, EmptyRangeDoesNothing) {
  Counter c(1);
  enc_parallel_for(0, 1, CountTask, &c);
  enc_parallel_for(-5, 1, CountTask, &c);
  EXPECT_EQ(c.calls.load(), 0);
}

TEST_F(ThreadsTest, UsesSeveralThreads) {
  enc_set_num_threads(2);
  // Each chunk waits (bounded) for the other, so two threads must run them.
  struct Ctx {
    std::atomic<int> arrived{0};
    std::atomic<bool> met{false};
  } ctx;
  enc_parallel_for(
      2, 1,
      [](void* p, int64_t, int64_t) {
        auto* c = static_cast<Ctx*>(p);
        c->arrived.fetch_add(1);
        for (int i = 0; i < 2000000 && c->arrived.load() < 2; ++i) {
          std::this_thread::yield();
        }
        if (c->arrived.load() == 2) c->met = true;
      },
      &ctx);
  EXPECT_TRUE(ctx.met.load());
}

TEST_F(ThreadsTest, BackToBackLoops) {
  enc_set_num_threads(2);
  for (int rep = 0; rep < 2000; ++rep) {
    Counter c(64);
    enc_parallel_for(64, 1, CountTask, &c);
    ExpectEachOnce(c);
  }
}

TEST_F(ThreadsTest, ConcurrentCallers) {
  enc_set_num_threads(2);
  std::vector<std::thread> users;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    users.emplace_back([&] {
      for (int rep = 0; rep < 300; ++rep) {
        const int64_t n = 1 + rep * 37 % 5000;
        Counter c(n);
        enc_parallel_for(n, 1, CountTask, &c);
        for (auto& h : c.hits) {
          if (h.load() != 1) {
            failures.fetch_add(1);
            break;
          }
        }
      }
    });
  }
  for (auto& u : users) u.join();
  EXPECT_EQ(failures.load(), 0);
}

struct NestedCtx {
  std::atomic<int> inline_inner{0}, outer_chunks{0};
  Counter* inner;
};

TEST_F(ThreadsTest, NestedCallRunsInline) {
  enc_set_num_threads(2);
  Counter inner(2 * 1000);
  NestedCtx ctx;
  ctx.inner = &inner;
  enc_parallel_for(
      2, 1,
      [](void* p, int64_t begin, int64_t end) {
        auto* c = static_cast<NestedCtx*>(p);
        for (int64_t i = begin; i < end; ++i) {
          c->outer_chunks.fetch_add(1);
          struct Inner {
            Counter* counter;
            int64_t offset;
            std::thread::id caller;
            bool same_thread = true;
          } in{c->inner, i * 1000, std::this_thread::get_id()};
          enc_parallel_for(
              1000, 1,
              [](void* q, int64_t b, int64_t e) {
                auto* in = static_cast<Inner*>(q);
                if (std::this_thread::get_id() != in->caller)
                  in->same_thread = false;
                for (int64_t j = b; j < e; ++j)
                  in->counter->hits[in->offset + j]++;
              },
              &in);
          if (in.same_thread) c->inline_inner.fetch_add(1);
        }
      },
      &ctx);
  EXPECT_EQ(ctx.outer_chunks.load(), 2);
  EXPECT_EQ(ctx.inline_inner.load(), 2);
  ExpectEachOnce(inner);
}

TEST_F(ThreadsTest, SetNumThreads) {
  EXPECT_EQ(enc_set_num_threads(1), 1);
  EXPECT_EQ(enc_threads_count(), 1);
  Counter c1(1000);
  enc_parallel_for(1000, 1, CountTask, &c1);
  ExpectEachOnce(c1);
  EXPECT_EQ(c1.calls.load(), 1);

  EXPECT_EQ(enc_set_num_threads(2), 2);
  EXPECT_EQ(enc_threads_count(), 2);
  Counter c2(1000);
  enc_parallel_for(1000, 1, CountTask, &c2);
  ExpectEachOnce(c2);
  EXPECT_EQ(c2.calls.load(), 8);  // 4 chunks per thread

  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  EXPECT_EQ(enc_set_num_threads(0), cores > 0 ? cores : 1);
  EXPECT_EQ(enc_threads_count(), cores > 0 ? cores : 1);

  EXPECT_EQ(enc_set_num_threads(-1), -1);
  EXPECT_NE(std::string(enc_last_error()).find("negative"), std::string::npos)
      << enc_last_error();
  EXPECT_EQ(enc_threads_count(), cores > 0 ? cores : 1);  // unchanged
}

// Resizing from inside a loop neither deadlocks nor disturbs the loop; it
// takes effect afterwards.
TEST_F(ThreadsTest, ResizeInsideLoopIsDeferred) {
  enc_set_num_threads(2);
  Counter c(100);
  struct Ctx {
    Counter* c;
  } ctx{&c};
  enc_parallel_for(
      100, 1,
      [](void* p, int64_t b, int64_t e) {
        if (b == 0) enc_set_num_threads(3);
        CountTask(static_cast<Ctx*>(p)->c, b, e);
      },
      &ctx);
  ExpectEachOnce(c);
  EXPECT_EQ(enc_threads_count(), 3);
  Counter c3(300);
  enc_parallel_for(300, 1, CountTask, &c3);
  ExpectEachOnce(c3);
  EXPECT_EQ(c3.calls.load(), 12);
}

TEST_F(ThreadsTest, ResizeWhileOtherThreadsRun) {
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> users;
  for (int t = 0; t < 2; ++t) {
    users.emplace_back([&] {
      while (!stop.load()) {
        Counter c(777);
        enc_parallel_for(777, 1, CountTask, &c);
        for (auto& h : c.hits) {
          if (h.load() != 1) {
            failures.fetch_add(1);
            break;
          }
        }
      }
    });
  }
  for (int i = 0; i < 50; ++i) enc_set_num_threads(1 + i % 4);
  stop = true;
  for (auto& u : users) u.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
