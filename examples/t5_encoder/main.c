/* t5_small on the token ids given on the command line.
 * usage: t5_encoder_demo WEIGHTS.safetensors ID [ID...] */
#include "t5_encoder.h"

#define DEMO_MODEL t5_small
#include "../common/token_demo.h"
