/* roformer_base on the token ids given on the command line.
 * usage: roformer_demo WEIGHTS.safetensors ID [ID...] */
#include "roformer.h"

#define DEMO_MODEL roformer_base
#define DEMO_D_MODEL ROFORMER_BASE_D_MODEL
#define DEMO_POOLED ROFORMER_BASE_POOLED
#include "../common/token_demo.h"
