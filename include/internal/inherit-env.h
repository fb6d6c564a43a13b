/* inherit-env.h: the environment variable that tells libpmapi, in a program it did not start, that
 * the main thread runs with a context whose state passes on (pmapi/inherit.c reads it, pmcount sets
 * it). Shared by the library and the tools; never installed. */
#pragma once

/* Set to "1" in the environment of a program that runs with a context it did not make itself (pmcount
 * forks, joins its group and executes the command with libpmapi preloaded): the library's
 * constructor then takes the main thread as one whose new threads and children inherit, so that
 * they ask pmapid before they run, as in a program that called pm_set_program_mygroup(). */
#define PMAPI_INHERIT_ENV "PMAPI_INHERIT"
