import { createRoot } from 'react-dom/client';
import 'uplot/dist/uPlot.min.css';
import './admin.css';
import { App } from './App';
import { consoleTexts } from './texts';

const texts = consoleTexts(navigator.language);
document.documentElement.lang = texts.lang;
document.title = texts.title;
createRoot(document.getElementById('admin-console') ?? document.body).render(<App texts={texts} />);
