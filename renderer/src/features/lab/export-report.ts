/** "Export report": the core writes one self-contained HTML file; the browser downloads it. */
import { api } from '../../api';
import { downloadText } from '../sessions/download';

export async function exportLabReport(runId: string): Promise<string> {
  const { fileName, text } = await api.exportLabReport({ runId });
  downloadText(fileName, text, 'text/html');
  return fileName;
}
