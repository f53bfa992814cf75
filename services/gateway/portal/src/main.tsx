import { render } from 'preact';
import { Portal } from './portal';

render(<Portal />, document.getElementById('root')!);
