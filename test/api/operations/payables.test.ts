import { describeTitleRest } from '../rules/title-rest-suite.js';

describeTitleRest({ resource: 'payables', settledStatus: 'paid', transactionType: 'debit' });
