#include "trace/trace-hw_copro.h"
