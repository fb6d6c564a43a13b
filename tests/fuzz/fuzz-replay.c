/* fuzz-replay.c: runs a libFuzzer target's LLVMFuzzerTestOneInput over every file of a corpus
 * directory, for compilers without libFuzzer: the corpus becomes an ordinary test.
 *   fuzz-replay DIR...   exit 0 when every input was served without a crash */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path) {
        static uint8_t buf[1 << 20];
        FILE *f = fopen(path, "re");
        size_t n;

        if (!f)
                return -1;
        n = fread(buf, 1, sizeof(buf), f);
        fclose(f);
        return LLVMFuzzerTestOneInput(buf, n);
}

int main(int argc, char *argv[]) {
        int n = 0;

        for (int i = 1; i < argc; i++) {
                DIR *d = opendir(argv[i]);
                struct dirent *de;

                if (!d) {
                        fprintf(stderr, "cannot open %s\n", argv[i]);
                        return 1;
                }
                while ((de = readdir(d))) {
                        char path[4096];
                        if (de->d_name[0] == '.')
                                continue;
                        snprintf(path, sizeof(path), "%s/%s", argv[i], de->d_name);
                        if (replay_file(path) != 0)
                                return 1;
                        n++;
                }
                closedir(d);
        }
        printf("1..1\nok 1 - %d corpus inputs served\n", n);
        return n > 0 ? 0 : 1;
}
