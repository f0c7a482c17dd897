# Writes the inputs of nesting-depth.test into the directory argv[1].
import os
import sys

def write(name, *lines):
    with open(os.path.join(sys.argv[1], name), 'w') as f:
        f.write('\n'.join(('encoder a {',) + lines + ('}',)) + '\n')

write('parens.enc', '  d_model = ' + '(' * 300 + '64' + ')' * 300 + ';', '  heads = 4;')
write('minus.enc', '  d_model = ' + '-' * 300 + '64;', '  heads = 4;')
write('mixed.enc', '  d_model = ' + '(-' * 200 + '64' + ')' * 200 + ';', '  heads = 4;')
write('huge.enc', '  d_model = ' + '(' * 100000 + '64' + ')' * 100000 + ';')
# Exactly 256 levels is accepted.
write('ok.enc', '  d_model = ' + '(' * 256 + '64' + ')' * 256 + ';', '  heads = ' + '-' * 128 + '4;')
