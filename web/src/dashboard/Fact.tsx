// One fact of a description list: its name and value (the record page's).

import type { ReactNode } from 'react';

export function Fact({ name, children }: { name: string; children: ReactNode }) {
  return (
    <div>
      <dt>{name}</dt>
      <dd>{children}</dd>
    </div>
  );
}
