#include "kernels/a.h"
#include <vector>
