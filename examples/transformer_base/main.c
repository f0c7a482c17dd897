/* transformer_base on the token ids given on the command line.
 * usage: transformer_base_demo WEIGHTS.safetensors ID [ID...] */
#include "transformer_base.h"

#define DEMO_MODEL transformer_base
#define DEMO_D_MODEL TRANSFORMER_BASE_D_MODEL
#define DEMO_POOLED TRANSFORMER_BASE_POOLED
#include "../common/token_demo.h"
