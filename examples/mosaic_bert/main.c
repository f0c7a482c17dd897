/* mosaic_bert on the token ids given on the command line.
 * usage: mosaic_bert_demo WEIGHTS.safetensors ID [ID...] */
#include "mosaic_bert.h"

#define DEMO_MODEL mosaic_bert
#include "../common/token_demo.h"
