/* bge_small on the token ids given on the command line.
 * usage: bge_small_demo WEIGHTS.safetensors ID [ID...] */
#include "bge_small.h"

#define DEMO_MODEL bge_small
#include "../common/token_demo.h"
