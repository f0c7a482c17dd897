/* roberta_base on the token ids given on the command line.
 * usage: roberta_base_demo WEIGHTS.safetensors ID [ID...] */
#include "roberta_base.h"

#define DEMO_MODEL roberta_base
#include "../common/token_demo.h"
