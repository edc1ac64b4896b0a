import { describe, expect, it } from 'vitest';
import { shellWords } from './shell-words.js';

const DIR = { CLAUDE_PROJECT_DIR: '/w/my project' };

describe('shellWords', () => {
  it('splits on blanks and takes quotes off, as a shell does', () => {
    expect(shellWords('python3  .claude/hooks/x.py\t--fix')).toEqual(['python3', '.claude/hooks/x.py', '--fix']);
    expect(shellWords(`node 'scripts/a b.js' "c d"e f\\ g`)).toEqual(['node', 'scripts/a b.js', 'c de', 'f g']);
  });

  it('expands the variables it is given, bare or in braces, unquoted or in double quotes, and no value is split again', () => {
    expect(shellWords('"$CLAUDE_PROJECT_DIR"/.claude/hooks/format.sh', DIR)).toEqual(['/w/my project/.claude/hooks/format.sh']);
    expect(shellWords('${CLAUDE_PROJECT_DIR}/a.sh $CLAUDE_PROJECT_DIR/b.sh', DIR)).toEqual(['/w/my project/a.sh', '/w/my project/b.sh']);
    expect(shellWords('"${CLAUDE_PROJECT_DIR}/c.sh"', DIR)).toEqual(['/w/my project/c.sh']);
  });

  it('leaves a variable as spelled inside single quotes, behind a backslash, and where it is not given', () => {
    expect(shellWords(`'$CLAUDE_PROJECT_DIR/a' \\$CLAUDE_PROJECT_DIR/b "\\$CLAUDE_PROJECT_DIR" $HOME/x $CLAUDE_PROJECT_DIRS`, DIR)).toEqual([
      '$CLAUDE_PROJECT_DIR/a',
      '$CLAUDE_PROJECT_DIR/b',
      '$CLAUDE_PROJECT_DIR',
      '$HOME/x',
      '$CLAUDE_PROJECT_DIRS',
    ]);
  });

  it('ends a word at each operator, which makes none', () => {
    expect(shellWords('cd src&&./lint.sh;echo ok|tee log.txt>out 2>&1 (sub)`x`')).toEqual(['cd', 'src', './lint.sh', 'echo', 'ok', 'tee', 'log.txt', 'out', '2', '1', 'sub', 'x']);
    // Quoted, an operator is part of the word.
    expect(shellWords(`sh -c 'a.sh && b.sh'`)).toEqual(['sh', '-c', 'a.sh && b.sh']);
  });

  it('reads a backslash inside double quotes as a shell does, joins a continued line, and runs an open quote to the end', () => {
    expect(shellWords('"a\\b\\"c" x\\\ny')).toEqual(['a\\b"c', 'xy']);
    expect(shellWords(`node "scripts/open.js --x`)).toEqual(['node', 'scripts/open.js --x']);
    expect(shellWords(`a ''  "" b`)).toEqual(['a', 'b']);
    expect(shellWords('trailing\\')).toEqual(['trailing']);
  });

  it('reads a long line in time linear in its length', () => {
    const started = performance.now();
    expect(shellWords('$'.repeat(200_000) + 'x', DIR)).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
