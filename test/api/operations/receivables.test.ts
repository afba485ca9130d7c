import { describeTitleRest } from '../rules/title-rest-suite.js';

describeTitleRest({ resource: 'receivables', settledStatus: 'received', transactionType: 'credit' });
