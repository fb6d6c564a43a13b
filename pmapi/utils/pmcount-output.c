/* pmcount-output.c: pmcount's report in the format asked (-x, -j): above its writers, which share
 * the report's accessors below them. */
#include <stdio.h>

#include "pmcount.h"
#include "pmcount-report.h"

int report_write(Report *r) {
        switch (r->options->format) {
        case REPORT_CSV:
                return report_write_csv(r, r->f);
        case REPORT_JSON:
                return report_write_json(r, r->f);
        default:
                return report_write_text(r, r->f);
        }
}
