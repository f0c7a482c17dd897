/* transformer_base on the token ids given on the command line.
 * usage: transformer_base_demo WEIGHTS.safetensors ID [ID...] */
#include "transformer_base.h"

#define DEMO_MODEL transformer_base
#include "../common/token_demo.h"
