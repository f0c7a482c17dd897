/* modernbert_base on the token ids given on the command line.
 * usage: modernbert_base_demo WEIGHTS.safetensors ID [ID...] */
#include "modernbert_base.h"

#define DEMO_MODEL modernbert_base
#include "../common/token_demo.h"
