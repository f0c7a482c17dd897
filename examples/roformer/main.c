/* roformer_base on the token ids given on the command line.
 * usage: roformer_demo WEIGHTS.safetensors ID [ID...] */
#include "roformer.h"

#define DEMO_MODEL roformer_base
#include "../common/token_demo.h"
