#include <cmark-gfm.h>
#include <cmark-gfm-extension_api.h>
#include <cmark-gfm-core-extensions.h>

// The parser options the web app uses, as constants Swift imports (the header's are macros).
static const int vaultsync_cmark_options = CMARK_OPT_FOOTNOTES | CMARK_OPT_VALIDATE_UTF8;
