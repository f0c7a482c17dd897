/* flan_t5_small_encoder on the token ids given on the command line.
 * usage: flan_t5_small_encoder_demo WEIGHTS.safetensors ID [ID...] */
#include "flan_t5_small_encoder.h"

#define DEMO_MODEL flan_t5_small_encoder
#include "../common/token_demo.h"
