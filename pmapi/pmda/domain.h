/* pmdapmapi's Performance Metrics Domain, which PCP's Install reads (unassigned in stdpmid). */
#define PMAPI 190
