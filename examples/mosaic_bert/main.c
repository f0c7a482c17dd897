/* mosaic_bert on the token ids given on the command line.
 * usage: mosaic_bert_demo WEIGHTS.safetensors ID [ID...] */
#include "mosaic_bert.h"

#define DEMO_MODEL mosaic_bert
#define DEMO_D_MODEL MOSAIC_BERT_D_MODEL
#define DEMO_POOLED MOSAIC_BERT_POOLED
#include "../common/token_demo.h"
