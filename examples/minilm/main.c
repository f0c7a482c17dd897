/* minilm on the token ids given on the command line.
 * usage: minilm_demo WEIGHTS.safetensors ID [ID...] */
#include "minilm.h"

#define DEMO_MODEL minilm
#include "../common/token_demo.h"
