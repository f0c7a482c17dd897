#include "kernels/b.h"
